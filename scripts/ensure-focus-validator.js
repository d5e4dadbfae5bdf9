#!/usr/bin/env node
// Provides the FinOps Foundation's FOCUS validator (PyPI `focus-validator`) for the FOCUS cost export's test.
// Prints only the absolute path of an executable that runs it, so callers can do
// `$(node scripts/ensure-focus-validator.js)`. FOCUS_VALIDATOR_PATH overrides it.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { TOOLS, isExecutable, pipInstall, fail, runEnsure } = require('./wheel');

// 1.0.0 imports `multimethod.overload` through pandera 0.17, which multimethod 2 removed: pin the last 1.x.
const REQUIREMENTS = ['focus-validator==1.0.0', 'multimethod==1.12'];
const VENV = path.join(TOOLS, 'focus-validator');
const WRAPPER = path.join(VENV, 'run-focus-validator');

// The validator reads its currency list at a path relative to the working directory (its package's parent), so the
// wrapper runs it from there; data files must then be given as absolute paths.
function wrapperText(venv) {
  return [
    '#!/bin/sh',
    `cd "$("${venv}/bin/python" -c 'import focus_validator, os; print(os.path.dirname(os.path.dirname(focus_validator.__file__)))')" || exit 1`,
    `exec "${venv}/bin/focus-validator" "$@"`,
    '',
  ].join('\n');
}

/** A validator that runs and can validate FOCUS 1.0 (the newest version 1.0.0 has rules for). */
function isFocusValidator(file) {
  const result = spawnSync(file, ['--supported-versions'], { encoding: 'utf8', timeout: 120_000 });
  const ok = result.status === 0 && result.stdout.split('\n').includes('1.0');
  if (!ok) process.stderr.write(`Skipping ${file}: not a working focus-validator (${result.stderr.trim()}).\n`);
  return ok;
}

function writeWrapper() {
  fs.writeFileSync(WRAPPER, wrapperText(VENV), { mode: 0o755 });
  return WRAPPER;
}

/**
 * Returns an executable that runs focus-validator: FOCUS_VALIDATOR_PATH, the venv in .tools/focus-validator, or a new
 * venv installed there with pip. Throws an Error whose `code` is FOCUS_VALIDATOR_NOT_FOUND or
 * FOCUS_VALIDATOR_PATH_INVALID.
 */
function ensureFocusValidator() {
  const override = process.env.FOCUS_VALIDATOR_PATH;
  if (override) {
    const file = path.resolve(override);
    if (!isExecutable(file) || !isFocusValidator(file)) {
      throw fail(`FOCUS_VALIDATOR_PATH=${override} is not a working focus-validator.`, 'FOCUS_VALIDATOR_PATH_INVALID');
    }
    return file;
  }
  if (isExecutable(path.join(VENV, 'bin', 'focus-validator')) && isFocusValidator(writeWrapper())) return WRAPPER;

  const result = pipInstall(VENV, REQUIREMENTS, () => (isFocusValidator(writeWrapper()) ? WRAPPER : undefined));
  if (result.path) return result.path;
  throw fail(
    [
      `No focus-validator (${result.reason}). Do one of:`,
      `  - rerun with python3 (with venv and pip) and access to the Python package registry: it installs ${REQUIREMENTS.join(' ')} into ${VENV}`,
      '  - set FOCUS_VALIDATOR_PATH to an executable that runs focus-validator from its package directory',
    ].join('\n'),
    'FOCUS_VALIDATOR_NOT_FOUND',
  );
}

module.exports = { ensureFocusValidator };

if (require.main === module) runEnsure('ensure-focus-validator', ensureFocusValidator, 'FOCUS_VALIDATOR_NOT_FOUND');
