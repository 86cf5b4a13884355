import * as v from 'valibot';

/**
 * valibot's issues as one line for an error message: each issue's message with where it is
 * (`… (at cells.0.source)`), joined by `; `. valibot's own summarize() writes a line per issue
 * with `×` and `→` marks, meant for a terminal, not for a JSON error body.
 */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((issue) => {
      const where = v.getDotPath(issue);
      return where ? `${issue.message} (at ${where})` : issue.message;
    })
    .join('; ');
}
