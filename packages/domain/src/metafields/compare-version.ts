// decisions §2.6: version-dependent rules are decided once, in versions/; the rule engine reads them
// under these names.
export {
  EMPTY_VALUE_FORBIDDEN_FROM as NON_EMPTY_VALUE_SINCE,
  isEmptyValueForbidden as rejectsEmptyValue,
} from '../versions/compare-version';
