/** Files the worker leaves in the data directory so that the CLI (and people) can find the embedded services. */
export const ADDRESS_FILE = 'temporal-address';
export const SIMULATOR_URL_FILE = 'simulator-url';
export const EMBEDDED_CREDENTIALS_FILE = 'simulator-credentials.json';
export const TEMPORAL_UI_URL_FILE = 'temporal-ui-url';
