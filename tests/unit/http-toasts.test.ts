/** What a failed call shows (SPEC.md section 8) and which failed reads are tried again. */
import { describe, expect, it } from 'vitest';
import { CODES } from '../../common/errors';
import { retryRead, toastOf } from '../../src/providers/http';

describe('the toast of a failed call', () => {
  it('a 403 reads "Permission denied", whatever the server said', () => {
    expect(toastOf({ message: 'Insufficient permission', statusCode: 403, code: CODES.permissionDenied })).toEqual({ key: 'errors.permissionDenied' });
    expect(toastOf({ message: 'some server words', statusCode: 403 })).toEqual({ key: 'errors.permissionDenied' });
  });
  it("a 403 with one of SPEC.md's organisation codes keeps its own words", () => {
    expect(toastOf({ message: 'Insufficient permission.', statusCode: 403, code: CODES.orgInsufficientPermission })).toEqual({
      text: 'Insufficient permission.',
    });
    expect(toastOf({ message: 'Insufficient permission to edit…', statusCode: 403, code: CODES.orgFirstLevelPermission })).toEqual({
      text: 'Insufficient permission to edit…',
    });
  });
  it("other failures show the server's message; no answer is a network error", () => {
    expect(toastOf({ message: 'SIM 89… does not exist.', statusCode: 404 })).toEqual({ text: 'SIM 89… does not exist.' });
    expect(toastOf({ message: 'Network Error', statusCode: 0 })).toEqual({ key: 'http.networkError' });
  });
});

describe('which failed reads are tried again', () => {
  it.each([
    [0, 0, true],
    [0, 500, true],
    [0, 503, true],
    [1, 500, false],
    [0, 400, false],
    [0, 403, false],
    [0, 404, false],
    [0, 429, false],
  ])('attempt %i after %i: %s', (count, statusCode, expected) => {
    expect(retryRead(count, { message: 'x', statusCode })).toBe(expected);
  });
});
