/**
 * Returns the folder of PostgreSQL's initdb and postgres (POSTGRES_BIN_DIR, Debian's folders, PATH, or Debian's
 * package installed when running as root). Throws an Error whose `code` is POSTGRES_NOT_FOUND,
 * POSTGRES_BIN_DIR_INVALID or POSTGRES_INSTALL_FAILED.
 */
export declare function ensurePostgres(): string;
