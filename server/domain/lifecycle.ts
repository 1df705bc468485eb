/**
 * The SIM lifecycle (SPEC.md section 4), the server's domain rule: pure functions that live in common/lifecycle.ts so
 * that the console, which offers only the actions a SIM's state allows, asks the same functions without importing
 * the server.
 */
export * from '../../common/lifecycle.js';
