//! OpenAPI v3: `/openapi/v3` and `/openapi/v3/<gv path>?hash=…`; `/openapi/v2` answers 404.
//! (Owned by the `wire` helper.)
