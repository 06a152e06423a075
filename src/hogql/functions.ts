/**
 * The functions a HogQL query may call, and how each prints in ClickHouse SQL. Nothing else
 * prints: a name missing here is `Unsupported function call`, so ClickHouse functions that read
 * files, URLs, other tables, dictionaries or the server's state can never be reached.
 */

export interface FunctionDef {
  /** The ClickHouse function it prints as. */
  clickhouse: string;
  minArgs: number;
  maxArgs: number;
  /** Extra arguments printed after the query's own: the project time zone, a type name. */
  suffix?: 'timezone' | 'precision-timezone';
  /** Prints as `accurateCastOrNull(x, '<type>')`. */
  castTo?: string;
  aggregate?: boolean;
  /** Takes parameters before its arguments: `quantile(0.9)(x)`. */
  parametric?: boolean;
}

const MANY = 1000;

function same(names: string, minArgs: number, maxArgs: number, extra: Partial<FunctionDef> = {}): [string, FunctionDef][] {
  return names
    .split(/\s+/)
    .filter(Boolean)
    .map((name) => [name, { clickhouse: name, minArgs, maxArgs, ...extra }]);
}

const REGULAR: [string, FunctionDef][] = [
  // Arithmetic and maths
  ...same('plus minus multiply divide intDiv intDivOrZero modulo moduloOrZero positiveModulo pow power atan2 hypot', 2, 2),
  ...same('negate abs exp log exp2 log2 exp10 log10 sqrt cbrt erf erfc lgamma tgamma sin cos tan asin acos atan sign degrees radians ln', 1, 1),
  ...same('round roundBankers floor ceil trunc', 1, 2),
  ...same('greatest least', 1, MANY),
  ...same('min2 max2', 2, 2),
  ...same('pi e', 0, 0),
  ...same('gcd lcm', 2, 2),
  ...same('isFinite isInfinite isNaN', 1, 1),
  ...same('rand rand64 randCanonical', 0, 1),
  // Conditions and nulls
  ...same('if', 3, 3),
  ...same('multiIf', 3, MANY),
  ...same('ifNull nullIf', 2, 2),
  ...same('coalesce', 1, MANY),
  ...same('isNull isNotNull assumeNotNull toNullable isZeroOrNull', 1, 1),
  ...same('caseWithExpression', 4, MANY),
  ...same('and or', 2, MANY),
  ...same('not', 1, 1),
  ...same('xor', 2, MANY),
  ...same('equals notEquals less greater lessOrEquals greaterOrEquals', 2, 2),
  // Strings
  ...same(
    'empty notEmpty length lengthUTF8 char_length character_length lower upper lowerUTF8 upperUTF8 reverse reverseUTF8 isValidUTF8 toValidUTF8 trimLeft trimRight base64Encode base64Decode tryBase64Decode hex unhex normalizeUTF8NFC ascii soundex initcap initcapUTF8 encodeXMLComponent decodeXMLComponent decodeHTMLComponent',
    1,
    1,
  ),
  ...same('trim trimBoth', 1, 2),
  ...same('leftPad rightPad leftPadUTF8 rightPadUTF8', 2, 3),
  ...same('repeat left right leftUTF8 rightUTF8 startsWith endsWith concatWithSeparator', 2, MANY),
  ...same('substring substr mid substringUTF8', 2, 3),
  ...same('appendTrailingCharIfAbsent', 2, 2),
  ...same('position positionCaseInsensitive positionUTF8 positionCaseInsensitiveUTF8 locate', 2, 3),
  ...same(
    'match like notLike ilike notILike multiMatchAny multiMatchAnyIndex multiSearchAny multiSearchFirstPosition countSubstrings countSubstringsCaseInsensitive countMatches',
    2,
    3,
  ),
  ...same('extract extractAll extractAllGroupsHorizontal extractAllGroupsVertical regexpExtract extractGroups', 2, 3),
  ...same('replace replaceOne replaceAll replaceRegexpOne replaceRegexpAll translate translateUTF8', 3, 3),
  ...same('splitByChar splitByString splitByRegexp splitByWhitespace splitByNonAlpha alphaTokens', 1, 3),
  ...same('arrayStringConcat', 1, 2),
  ...same('format', 1, MANY),
  ...same(
    'ngramDistance ngramSearch editDistance levenshteinDistance damerauLevenshteinDistance jaroSimilarity jaroWinklerSimilarity stringJaccardIndex',
    2,
    2,
  ),
  // URLs
  ...same(
    'protocol domain domainWithoutWWW topLevelDomain firstSignificantSubdomain cutToFirstSignificantSubdomain cutToFirstSignificantSubdomainWithWWW port path pathFull queryString fragment queryStringAndFragment extractURLParameters extractURLParameterNames URLHierarchy URLPathHierarchy decodeURLComponent encodeURLComponent decodeURLFormComponent encodeURLFormComponent netloc cutWWW cutQueryString cutFragment cutQueryStringAndFragment',
    1,
    2,
  ),
  ...same('extractURLParameter cutURLParameter', 2, 2),
  // JSON
  ...same(
    'JSONHas JSONLength JSONType JSONExtractUInt JSONExtractInt JSONExtractFloat JSONExtractBool JSONExtractString JSONExtractRaw JSONExtractArrayRaw JSONExtractKeys JSONExtractKeysAndValuesRaw isValidJSON',
    1,
    MANY,
  ),
  ...same('JSONExtract JSONExtractKeysAndValues', 2, MANY),
  ...same(
    'simpleJSONHas simpleJSONExtractUInt simpleJSONExtractInt simpleJSONExtractFloat simpleJSONExtractBool simpleJSONExtractRaw simpleJSONExtractString visitParamHas visitParamExtractString visitParamExtractRaw',
    2,
    2,
  ),
  ...same('toJSONString', 1, 1),
  // Arrays
  ...same('array', 0, MANY),
  ...same('range', 1, 3),
  ...same('arrayConcat', 1, MANY),
  ...same(
    'has hasAll hasAny hasSubstr indexOf countEqual arrayElement arrayPushBack arrayPushFront arrayResize arraySlice arrayPopBack arrayPopFront arrayDistinct arrayEnumerate arrayEnumerateUniq arrayReverse arrayFlatten arrayCompact arrayZip arrayUniq arrayJoin arrayReduce arrayEnumerateDense arrayIntersect arrayStringConcat arrayWithConstant arrayShuffle arrayPartialSort arrayPartialReverseSort arrayDifference arrayCumSumNonNegative arrayProduct emptyArrayString emptyArrayInt64 emptyArrayUInt8 emptyArrayFloat64',
    0,
    MANY,
  ),
  ...same(
    'arrayMap arrayFilter arrayFill arrayReverseFill arraySplit arrayReverseSplit arrayExists arrayAll arrayFirst arrayLast arrayFirstIndex arrayLastIndex arrayFirstOrNull arrayLastOrNull arrayMin arrayMax arraySum arrayAvg arrayCount arrayCumSum arraySort arrayReverseSort arrayFold',
    1,
    MANY,
  ),
  ...same('length notEmpty empty', 1, 1),
  ...same('tuple', 0, MANY),
  ...same('tupleElement', 2, 3),
  ...same('map', 0, MANY),
  ...same('mapKeys mapValues mapContains', 1, 2),
  // Hashes and ids
  ...same(
    'cityHash64 sipHash64 sipHash128 xxHash32 xxHash64 murmurHash2_32 murmurHash2_64 murmurHash3_32 murmurHash3_64 farmHash64 halfMD5 MD5 SHA1 SHA224 SHA256 SHA512 wyHash64 javaHash hiveHash',
    1,
    MANY,
  ),
  ...same('generateUUIDv4 generateUUIDv7', 0, 1),
  ...same('UUIDStringToNum UUIDNumToString', 1, 2),
  // Conversions that are safe as they are
  ...same(
    'toString toFixedString toInt8 toInt16 toInt32 toInt64 toInt128 toUInt8 toUInt16 toUInt32 toUInt64 toFloat32 toFloat64 toDecimal32 toDecimal64 toDecimal128 toInt8OrNull toInt16OrNull toInt32OrNull toInt64OrNull toUInt8OrNull toUInt16OrNull toUInt32OrNull toUInt64OrNull toFloat32OrNull toFloat64OrNull toInt64OrZero toUInt64OrZero toFloat64OrZero toDecimal64OrNull toStringCutToZero toTypeName toUUIDOrNull toUUIDOrZero toDateOrNull toDateOrZero toDate32 toBool reinterpretAsString parseDateTimeBestEffort parseDateTimeBestEffortOrNull parseDateTimeBestEffortOrZero parseDateTime64BestEffort parseDateTime64BestEffortOrNull parseDateTimeOrNull parseDateTime fromUnixTimestamp fromUnixTimestamp64Milli fromUnixTimestamp64Micro toUnixTimestamp toUnixTimestamp64Milli toUnixTimestamp64Micro formatDateTime formatReadableSize formatReadableQuantity formatReadableTimeDelta bar toTimeZone toStartOfInterval',
    1,
    4,
  ),
  // Dates and times
  ...same(
    'toYear toQuarter toMonth toDayOfYear toDayOfMonth toDayOfWeek toHour toMinute toSecond toISOYear toISOWeek toWeek toYearWeek toYYYYMM toYYYYMMDD toYYYYMMDDhhmmss toStartOfYear toStartOfISOYear toStartOfQuarter toStartOfMonth toMonday toStartOfWeek toStartOfDay toStartOfHour toStartOfMinute toStartOfSecond toStartOfFiveMinutes toStartOfFiveMinute toStartOfTenMinutes toStartOfFifteenMinutes toLastDayOfMonth toRelativeYearNum toRelativeMonthNum toRelativeWeekNum toRelativeDayNum toRelativeHourNum toRelativeMinuteNum toRelativeSecondNum timeSlot dateName monthName',
    1,
    3,
  ),
  ...same(
    'dateDiff date_diff dateAdd date_add dateSub date_sub dateTrunc date_trunc timestampAdd timestampSub addSeconds addMinutes addHours addDays addWeeks addMonths addQuarters addYears subtractSeconds subtractMinutes subtractHours subtractDays subtractWeeks subtractMonths subtractQuarters subtractYears age makeDate makeDateTime',
    2,
    4,
  ),
  ...same('toIntervalSecond toIntervalMinute toIntervalHour toIntervalDay toIntervalWeek toIntervalMonth toIntervalQuarter toIntervalYear', 1, 1),
  // Others
  ...same(
    'isIPv4String isIPv6String IPv4NumToString IPv4StringToNum IPv6NumToString toIPv4 toIPv6 isValidUTF8 bitAnd bitOr bitXor bitNot bitShiftLeft bitShiftRight bitCount',
    1,
    2,
  ),
  ...same('greatCircleDistance geoDistance', 4, 4),
  ...same('transform', 3, 4),
  ...same('sleep sleepEachRow', 1, 1, { clickhouse: '' }),
];

/** HogQL's own functions, with the semantics PostHog gives them. */
const HOGQL: [string, FunctionDef][] = [
  ['toInt', { clickhouse: 'accurateCastOrNull', castTo: 'Int64', minArgs: 1, maxArgs: 1 }],
  ['toFloat', { clickhouse: 'accurateCastOrNull', castTo: 'Float64', minArgs: 1, maxArgs: 1 }],
  ['toUUID', { clickhouse: 'accurateCastOrNull', castTo: 'UUID', minArgs: 1, maxArgs: 1 }],
  ['toDecimal', { clickhouse: 'toDecimal64OrNull', minArgs: 2, maxArgs: 2 }],
  ['toDateTime', { clickhouse: 'parseDateTime64BestEffortOrNull', minArgs: 1, maxArgs: 1, suffix: 'precision-timezone' }],
  ['toDate', { clickhouse: 'toDateOrNull', minArgs: 1, maxArgs: 1 }],
  ['now', { clickhouse: 'now64', minArgs: 0, maxArgs: 0, suffix: 'precision-timezone' }],
  ['today', { clickhouse: 'today', minArgs: 0, maxArgs: 0 }],
  ['yesterday', { clickhouse: 'yesterday', minArgs: 0, maxArgs: 0 }],
  ['concat', { clickhouse: 'concat', minArgs: 1, maxArgs: MANY }],
  ['lag', { clickhouse: 'lagInFrame', minArgs: 1, maxArgs: 3 }],
  ['lead', { clickhouse: 'leadInFrame', minArgs: 1, maxArgs: 3 }],
  ['_caseWithExpression', { clickhouse: 'caseWithExpression', minArgs: 4, maxArgs: MANY }],
];

const AGGREGATES: [string, FunctionDef][] = [
  ...same('count countIf', 0, 2, { aggregate: true }),
  ...same(
    'sum sumIf avg avgIf min minIf max maxIf any anyIf anyLast anyLastIf anyHeavy uniq uniqIf uniqExact uniqExactIf uniqHLL12 uniqTheta uniqCombined uniqCombined64 groupArray groupArrayIf groupUniqArray groupUniqArrayIf median medianIf medianExact stddevPop stddevSamp varPop varSamp sumDistinct groupBitAnd groupBitOr groupBitXor groupArrayMovingSum groupArrayMovingAvg',
    1,
    2,
    { aggregate: true },
  ),
  ...same('argMin argMax argMinIf argMaxIf corr covarPop covarSamp simpleLinearRegression sumMap minMap maxMap avgWeighted', 2, 3, { aggregate: true }),
  ...same(
    'quantile quantiles quantileIf quantileExact quantilesExact quantileTDigest quantilesTDigest quantileTiming quantileDeterministic topK topKIf histogram groupArraySample windowFunnel retention sequenceMatch sequenceCount',
    1,
    3,
    { aggregate: true, parametric: true },
  ),
  ...same('row_number rank dense_rank percent_rank cume_dist ntile first_value last_value nth_value lagInFrame leadInFrame', 0, 3, { aggregate: true }),
];

const FUNCTIONS = new Map<string, FunctionDef>([...REGULAR, ...HOGQL, ...AGGREGATES].filter(([, def]) => def.clickhouse !== ''));
const BY_LOWER_NAME = new Map<string, FunctionDef>([...FUNCTIONS].map(([name, def]) => [name.toLowerCase(), def]));
const ALL_NAMES = [...FUNCTIONS.keys()];

/** The function a HogQL name calls (exact name, else case-insensitively), or undefined. */
export function findFunction(name: string): FunctionDef | undefined {
  return FUNCTIONS.get(name) ?? BY_LOWER_NAME.get(name.toLowerCase());
}

/** Is a name an aggregate, so an EventsQuery `where` holding it goes to HAVING. */
export function isAggregate(name: string): boolean {
  return findFunction(name)?.aggregate === true;
}

function distance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(previous[j]! + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** PostHog's message for a function it does not have, with the closest known name when one is near. */
export function unsupportedFunctionMessage(name: string): string {
  const lower = name.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  if (name.length <= 64) {
    for (const candidate of ALL_NAMES) {
      const candidateDistance = distance(lower, candidate.toLowerCase());
      if (candidateDistance < bestDistance) {
        best = candidate;
        bestDistance = candidateDistance;
      }
    }
  }
  const suggestion =
    best !== null && bestDistance <= Math.max(name.length >= 5 ? 2 : 1, Math.floor(name.length / 4)) ? ` Perhaps you meant '${best}(...)'?` : '';
  return `Unsupported function call '${name}(...)'${suggestion}`;
}
