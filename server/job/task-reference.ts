/**
 * The reference id the task center shows for a task: one format for every kind, `PFX-YYYYMMDD-XXXXXX` (what the task
 * does, the UTC day it was asked for, six random letters or digits), so that a person can tell tasks apart and read
 * one out over the phone. Migration 062_task_reference_format.sql brought older references to this format.
 */
import { newId } from '../db/ids.js';

/** The three-letter prefix of each kind of task. */
export const TASK_REFERENCE_PREFIX: Record<string, string> = {
  sim_export: 'EXP',
  cdr_export: 'EXP',
  sms_export: 'EXP',
  bundle_export: 'EXP',
  invoice_export: 'EXP',
  autoflow_sims_export: 'EXP',
  cycle_export: 'EXP',
  device_bundle_export: 'EXP',
  coverage_export: 'EXP',
  sim_activate: 'ACT',
  sim_suspend: 'SUS',
  sim_resume: 'RES',
  sim_reset: 'RST',
  sim_transfer: 'TRF',
  sim_info_upload: 'UPL',
  sms_report: 'SMS',
  report: 'REP',
  invoice_run: 'RUN',
};

/** The pattern every reference id follows. */
export const TASK_REFERENCE_PATTERN = /^[A-Z]{3}-\d{8}-[0-9A-Z]{6}$/;

/** A reference for a task of `kind` asked for at `at`; `suffix` (six letters or digits) only where it must be repeatable (the demo seed). */
export function taskReference(kind: string, at: Date, suffix: string = newId(6)): string {
  return `${TASK_REFERENCE_PREFIX[kind] ?? 'TSK'}-${at.toISOString().slice(0, 10).replace(/-/g, '')}-${suffix.toUpperCase()}`;
}
