export type CatalogDialect = 'sqlite' | 'postgres';
