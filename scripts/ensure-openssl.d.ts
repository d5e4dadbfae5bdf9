/** The openssl command: on PATH, or Debian's package installed as root. */
export declare function ensureOpenssl(): string;
