#!/usr/bin/env node
// Provides cosign, built from its Go module at a fixed version, for the tests that check drill attestations the way an
// auditor does (`cosign verify-blob-attestation`). Prints its absolute path on stdout.
'use strict';

const { ensureGoTool, runAsScript } = require('./go-tool');

const VERSION = '2.6.5';

/** `{ cosign, version }`: COSIGN_PATH when set, else .tools/cosign-<version>/cosign (built when missing). */
function ensureCosign() {
  const tool = ensureGoTool({
    name: 'cosign',
    binary: 'cosign',
    version: VERSION,
    module: 'github.com/sigstore/cosign/v2',
    override: 'COSIGN_PATH',
    major: 'v2.',
    code: 'COSIGN',
  });
  return { cosign: tool.path, version: tool.version };
}

module.exports = { ensureCosign, COSIGN_VERSION: VERSION };

if (require.main === module) runAsScript('ensure-cosign', () => ({ path: ensureCosign().cosign }));
