/**
 * Returns the path of Chromium (CHROMIUM_PATH, /usr/bin/chromium, PATH, or Debian's package installed when running as
 * root). Throws an Error whose `code` is CHROMIUM_NOT_FOUND, CHROMIUM_PATH_INVALID or CHROMIUM_INSTALL_FAILED.
 */
export declare function ensureChromium(): string;
