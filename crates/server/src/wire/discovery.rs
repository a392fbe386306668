//! Discovery: `/api`, `/apis` (aggregated `apidiscovery.k8s.io/v2` when the Accept header asks
//! for it, else legacy), `/api/v1`, `/apis/G/V`, `/version`. (Owned by the `wire` helper.)
