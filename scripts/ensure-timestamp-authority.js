#!/usr/bin/env node
// Provides sigstore's timestamp-authority server (RFC 3161), built from its Go module at a fixed version, for the tests
// that timestamp evidence against a real authority and check the tokens with `openssl ts -verify`. v2.0.3 is the
// newest that builds with Go 1.26 (v2.1 asks for Go 1.27). Prints its absolute path on stdout.
'use strict';

const { ensureGoTool, runAsScript } = require('./go-tool');

const VERSION = '2.0.3';

/** `{ path, version }`: TIMESTAMP_SERVER_PATH when set, else .tools/timestamp-authority-<version>/timestamp-server. */
function ensureTimestampAuthority() {
  return ensureGoTool({
    name: 'timestamp-authority',
    binary: 'timestamp-server',
    version: VERSION,
    module: 'github.com/sigstore/timestamp-authority/v2',
    override: 'TIMESTAMP_SERVER_PATH',
    major: 'v2.',
    code: 'TIMESTAMP_SERVER',
  });
}

module.exports = { ensureTimestampAuthority, TIMESTAMP_AUTHORITY_VERSION: VERSION };

if (require.main === module) runAsScript('ensure-timestamp-authority', ensureTimestampAuthority);
