// Jest's global teardown for every run: removes the folder test/setup/run-dir.ts made.
export { removeRunDir as default } from './run-dir';
