import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes the runbooks set, so that operators can find runs by kind, resource and approval status. */
export const RunbookKindKey = defineSearchAttributeKey('RunbookKind', SearchAttributeType.KEYWORD);
export const RunbookResourceKey = defineSearchAttributeKey('RunbookResource', SearchAttributeType.KEYWORD);
export const ApprovalStatusKey = defineSearchAttributeKey('ApprovalStatus', SearchAttributeType.KEYWORD);
export const SEARCH_ATTRIBUTE_KEYS = [RunbookKindKey, RunbookResourceKey, ApprovalStatusKey];
