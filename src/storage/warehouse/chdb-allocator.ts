/**
 * How chDB's own allocator (a jemalloc it links, configured when libchdb loads) treats large
 * blocks. As built, it keeps freed pages for seconds to reuse them unless a block is 64 MB or
 * more, and the column buffers of every capture batch's insert and merges come and go in blocks
 * of a few megabytes: kept, they added about 30 MB to the peak memory of a 1M-event load. From
 * 1 MB up, allocations go to jemalloc's arena for oversized requests instead, which returns freed
 * pages at once; smaller ones keep the reuse they are fast with. No CPU per event or query
 * latency between the two could be told apart.
 *
 * jemalloc reads `JE_MALLOC_CONF` when the library loads, so this module is imported before
 * `chdb`; an operator's own setting is left as it is.
 */
const CHDB_ALLOCATOR_CONF = 'oversize_threshold:1048576';

process.env.JE_MALLOC_CONF ??= CHDB_ALLOCATOR_CONF;
