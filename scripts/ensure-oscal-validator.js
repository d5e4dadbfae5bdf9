#!/usr/bin/env node
// Provides an OSCAL validator for `evidence oscal`'s test: compliance-trestle (PyPI), whose models are generated from
// NIST's OSCAL JSON schemas and check a document against them. Prints only the absolute path of an executable
// `<it> <file.json>` that exits 0 for valid assessment results and 1, naming each fault, otherwise, so callers can do
// `$(node scripts/ensure-oscal-validator.js)`. OSCAL_VALIDATOR_PATH overrides it.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { TOOLS, isExecutable, pipInstall, fail, runEnsure } = require('./wheel');

// Pinned: a newer release may follow a newer OSCAL model, and the test must not change under us.
const REQUIREMENTS = ['compliance-trestle==5.2.0'];
const VENV = path.join(TOOLS, 'oscal-validator');
const WRAPPER = path.join(VENV, 'validate-assessment-results');

// trestle's own `validate` needs a trestle workspace; reading the file with the model is the same schema check.
const PROGRAM = [
  'import pathlib, sys',
  'from trestle.oscal.assessment_results import AssessmentResults',
  'try:',
  '    ar = AssessmentResults.oscal_read(pathlib.Path(sys.argv[1]))',
  'except Exception as e:',
  '    print(e, file=sys.stderr)',
  '    sys.exit(1)',
  'if ar is None:',
  '    print(f"{sys.argv[1]}: not read", file=sys.stderr)',
  '    sys.exit(1)',
  'print(f"valid OSCAL assessment-results: {sys.argv[1]} (uuid {ar.uuid})")',
].join('\n');

function wrapperText(venv) {
  return ['#!/bin/sh', `exec "${venv}/bin/python" -c '${PROGRAM}' "$@"`, ''].join('\n');
}

/** A validator that runs: it loads trestle's assessment-results model. */
function isOscalValidator(file) {
  const result = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 120_000 });
  // `--version` is no file: a working validator says it cannot read it, a broken one fails to import.
  const ok = result.status === 1 && !/ModuleNotFoundError|ImportError|Traceback/.test(result.stderr);
  if (!ok) process.stderr.write(`Skipping ${file}: not a working OSCAL validator (${result.stderr.trim()}).\n`);
  return ok;
}

function writeWrapper() {
  fs.writeFileSync(WRAPPER, wrapperText(VENV), { mode: 0o755 });
  return WRAPPER;
}

/**
 * Returns an executable that validates OSCAL assessment results: OSCAL_VALIDATOR_PATH, the venv in
 * .tools/oscal-validator, or a new venv installed there with pip. Throws an Error whose `code` is
 * OSCAL_VALIDATOR_NOT_FOUND or OSCAL_VALIDATOR_PATH_INVALID.
 */
function ensureOscalValidator() {
  const override = process.env.OSCAL_VALIDATOR_PATH;
  if (override) {
    const file = path.resolve(override);
    if (!isExecutable(file) || !isOscalValidator(file)) {
      throw fail(`OSCAL_VALIDATOR_PATH=${override} is not a working OSCAL validator.`, 'OSCAL_VALIDATOR_PATH_INVALID');
    }
    return file;
  }
  if (isExecutable(path.join(VENV, 'bin', 'trestle')) && isOscalValidator(writeWrapper())) return WRAPPER;

  const result = pipInstall(VENV, REQUIREMENTS, () => (isOscalValidator(writeWrapper()) ? WRAPPER : undefined));
  if (result.path) return result.path;
  throw fail(
    [
      `No OSCAL validator (${result.reason}). Do one of:`,
      `  - rerun with python3 (with venv and pip) and access to the Python package registry: it installs ${REQUIREMENTS.join(' ')} into ${VENV}`,
      '  - set OSCAL_VALIDATOR_PATH to an executable that takes a file and exits 0 when it is valid OSCAL assessment results',
    ].join('\n'),
    'OSCAL_VALIDATOR_NOT_FOUND',
  );
}

module.exports = { ensureOscalValidator };

if (require.main === module) runEnsure('ensure-oscal-validator', ensureOscalValidator, 'OSCAL_VALIDATOR_NOT_FOUND');
