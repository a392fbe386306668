//! The registry of served kinds: the one table of the built-in kinds the store serves (group,
//! plural, singular, Kind, short names, scope, as the apiserver's discovery lists them) and the
//! one rule for a custom resource. Every lookup goes through here: a REST path's group and plural
//! (`path`, the server's URL layout), an etcd key (`etcd`), an object's `apiVersion` and `kind`
//! (the engine's requests, kubectl's manifests, Save as scenario), and a name as kubectl and the
//! scenario language take it (`configmap`, `cm`, `deployments.apps`, `widgets.example.com`).
//!
//! The model serves every custom resource without a CustomResourceDefinition: a resource
//! `PLURAL.GROUP` exists when its names are ones a CRD could have, version `v1`, namespaced;
//! its Kind is the plural's singular, capitalised (`widgets` → `Widget`, `policies` →
//! `Policy`), and a Kind's plural is its lower case plus `s`, or `ies` for a final `y`.

use super::API;

/// A resource type the store serves.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    /// core/v1 ConfigMap.
    ConfigMap,
    /// apps/v1 Deployment.
    Deployment,
    /// core/v1 Secret.
    Secret,
    /// core/v1 Namespace (cluster-scoped: its objects have the namespace `""`).
    Namespace,
    /// A custom resource, version v1 of `group`, e.g. plural `widgets`, group `example.com`.
    Custom { plural: String, group: String },
}

/// A built-in kind, as the apiserver's discovery (`/api/v1`, `/apis/apps/v1`) lists it.
#[derive(Debug)]
pub struct BuiltIn {
    pub resource: Resource,
    /// The API group (`""` for the core group); the version is always `v1`.
    pub group: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub kind: &'static str,
    pub short_names: &'static [&'static str],
    /// False for a cluster-scoped kind (Namespaces).
    pub namespaced: bool,
}

/// The built-in kinds, in the order `rvlab serve`'s discovery lists them.
pub static BUILT_IN: [BuiltIn; 4] = [
    BuiltIn {
        resource: Resource::ConfigMap,
        group: "",
        plural: "configmaps",
        singular: "configmap",
        kind: "ConfigMap",
        short_names: &["cm"],
        namespaced: true,
    },
    BuiltIn {
        resource: Resource::Secret,
        group: "",
        plural: "secrets",
        singular: "secret",
        kind: "Secret",
        short_names: &[],
        namespaced: true,
    },
    BuiltIn {
        resource: Resource::Namespace,
        group: "",
        plural: "namespaces",
        singular: "namespace",
        kind: "Namespace",
        short_names: &["ns"],
        namespaced: false,
    },
    BuiltIn {
        resource: Resource::Deployment,
        group: "apps",
        plural: "deployments",
        singular: "deployment",
        kind: "Deployment",
        short_names: &["deploy"],
        namespaced: true,
    },
];

/// The built-in kinds this build serves: all four with the crate's `api` feature, ConfigMaps
/// and Deployments without it (the page: `API`).
pub fn served_built_ins() -> impl Iterator<Item = &'static BuiltIn> {
    BUILT_IN
        .iter()
        .filter(|b| API || matches!(b.resource, Resource::ConfigMap | Resource::Deployment))
}

/// The one rule for a custom resource's group: a DNS subdomain with at least one dot, as
/// apiextensions-apiserver validates a CustomResourceDefinition's `spec.group`
/// (`pkg/apis/apiextensions/validation/validation.go`, "should be a domain with at least one
/// dot"); the dotless groups (`apps`, `batch`, …) are Kubernetes' own.
pub fn is_custom_group(group: &str) -> bool {
    group.contains('.') && crate::names::is_subdomain(group)
}

/// The one rule for a custom resource's plural: a DNS-1035 label (lower case letters, digits
/// and `-`, starting with a letter), as `spec.names.plural` is validated (same file).
pub fn is_custom_plural(plural: &str) -> bool {
    crate::names::is_label(plural) && plural.starts_with(|c: char| c.is_ascii_lowercase())
}

impl Resource {
    /// The custom resource `plural.group`, when those are names a CRD could have.
    pub fn custom(group: &str, plural: &str) -> Option<Resource> {
        (is_custom_group(group) && is_custom_plural(plural)).then(|| Resource::Custom {
            plural: plural.to_string(),
            group: group.to_string(),
        })
    }

    /// The resource a REST path or an etcd key names by group and plural.
    pub fn for_plural(group: &str, plural: &str) -> Option<Resource> {
        match served_built_ins().find(|b| b.group == group && b.plural == plural) {
            Some(b) => Some(b.resource.clone()),
            None => Resource::custom(group, plural),
        }
    }

    /// The resource an object's `apiVersion` and `kind` name (`v1` ConfigMap, `apps/v1`
    /// Deployment, `example.com/v1` Widget → `widgets.example.com`).
    pub fn for_type(api_version: &str, kind: &str) -> Option<Resource> {
        let group = match api_version.rsplit_once('/') {
            Some((g, "v1")) => g,
            None if api_version == "v1" => "",
            _ => return None,
        };
        if let Some(b) = served_built_ins().find(|b| b.group == group && b.kind == kind) {
            return Some(b.resource.clone());
        }
        // A Kind is ASCII when it lowercases to a CRD's plural (and `to_lowercase` would link
        // 20 kB of Unicode case tables into the page: docs/size.md).
        if !kind.is_ascii() {
            return None;
        }
        let lower = kind.to_ascii_lowercase();
        let plural = match lower.strip_suffix('y') {
            Some(s) => format!("{s}ies"),
            None => format!("{lower}s"),
        };
        Resource::custom(group, &plural)
    }

    /// A built-in kind by its singular, plural or a short name (`configmap`, `configmaps`, `cm`),
    /// as the scenario language and kubectl take it.
    pub fn for_name(name: &str) -> Option<Resource> {
        served_built_ins()
            .find(|b| b.singular == name || b.plural == name || b.short_names.contains(&name))
            .map(|b| b.resource.clone())
    }

    /// A kind as kubectl's command line names it: [`Resource::for_name`], a built-in of a named
    /// group with the group after a dot (`deploy.apps`, `deployments.apps`), or a custom
    /// resource `PLURAL.GROUP`.
    pub fn for_kubectl_name(name: &str) -> Option<Resource> {
        if let Some(r) = Resource::for_name(name) {
            return Some(r);
        }
        let (first, group) = name.split_once('.')?;
        match Resource::for_name(first) {
            Some(r) if !r.group().is_empty() && r.group() == group => Some(r),
            _ => Resource::custom(group, first),
        }
    }

    /// This resource's row of [`BUILT_IN`]; `None` for a custom resource.
    pub fn built_in(&self) -> Option<&'static BuiltIn> {
        BUILT_IN.iter().find(|b| b.resource == *self)
    }

    /// The API group (`""` for the core group).
    pub fn group(&self) -> &str {
        match self {
            Resource::Custom { group, .. } => group,
            _ => self.built_in().map_or("", |b| b.group),
        }
    }
    /// The plural, lower-case resource name (`configmaps`).
    pub fn plural(&self) -> &str {
        match self {
            Resource::Custom { plural, .. } => plural,
            _ => self.built_in().map_or("", |b| b.plural),
        }
    }
    /// `apiVersion` as objects carry it (`v1`, `apps/v1`, `example.com/v1`).
    pub fn api_version(&self) -> String {
        match self.group() {
            "" => "v1".to_string(),
            g => format!("{g}/v1"),
        }
    }
    /// The Kind (`ConfigMap`, `Deployment`; for a custom resource the singular of the plural,
    /// capitalised: `widgets` → `Widget`).
    pub fn kind(&self) -> String {
        let Resource::Custom { plural, .. } = self else {
            return self.built_in().map_or("", |b| b.kind).to_string();
        };
        let singular = plural
            .strip_suffix("ies")
            .map(|s| format!("{s}y"))
            .or_else(|| plural.strip_suffix('s').map(str::to_string))
            .unwrap_or_else(|| plural.clone());
        let mut c = singular.chars();
        match c.next() {
            // Plurals are ASCII (`is_custom_plural`).
            Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
            None => String::new(),
        }
    }
    /// `GroupResource.String()`: `configmaps`, `deployments.apps`, `widgets.example.com`.
    pub fn group_resource(&self) -> String {
        match self.group() {
            "" => self.plural().to_string(),
            g => format!("{}.{g}", self.plural()),
        }
    }
    /// The short name the scenario language and narration use (`configmap`, `deployment`,
    /// `widgets.example.com`).
    pub fn short(&self) -> String {
        match self.built_in() {
            Some(b) => b.singular.to_string(),
            None => self.group_resource(),
        }
    }
    /// True for a cluster-scoped resource (Namespaces).
    pub fn is_cluster_scoped(&self) -> bool {
        self.built_in().is_some_and(|b| !b.namespaced)
    }
    /// The collection path prefix, without namespace (`/api/v1`, `/apis/apps/v1`).
    pub(super) fn api_prefix(&self) -> String {
        match self.group() {
            "" => "/api/v1".into(),
            g => format!("/apis/{g}/v1"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widgets() -> Resource {
        Resource::Custom {
            plural: "widgets".into(),
            group: "example.com".into(),
        }
    }

    #[test]
    fn every_lookup_finds_each_built_in_by_its_own_names() {
        for b in served_built_ins() {
            let r = &b.resource;
            assert_eq!(Resource::for_plural(b.group, b.plural).as_ref(), Some(r));
            assert_eq!(
                Resource::for_type(&r.api_version(), b.kind).as_ref(),
                Some(r)
            );
            assert_eq!(Resource::for_name(b.singular).as_ref(), Some(r));
            assert_eq!(Resource::for_name(b.plural).as_ref(), Some(r));
            for s in b.short_names {
                assert_eq!(Resource::for_name(s).as_ref(), Some(r));
            }
            assert_eq!(r.kind(), b.kind);
            assert_eq!(r.plural(), b.plural);
            assert_eq!(r.group(), b.group);
            assert_eq!(r.is_cluster_scoped(), !b.namespaced);
        }
        assert_eq!(
            Resource::for_kubectl_name("deploy.apps"),
            Some(Resource::Deployment)
        );
        assert_eq!(
            Resource::for_kubectl_name("deployments.apps"),
            Some(Resource::Deployment)
        );
        // The core group has no name after a dot, and a built-in is not in another group.
        assert_eq!(Resource::for_kubectl_name("configmaps.apps"), None);
        assert_eq!(Resource::for_kubectl_name("deployments.batch"), None);
    }

    #[test]
    fn one_rule_for_custom_resources_everywhere() {
        assert_eq!(
            Resource::for_plural("example.com", "widgets"),
            Some(widgets())
        );
        assert_eq!(
            Resource::for_type("example.com/v1", "Widget"),
            Some(widgets())
        );
        assert_eq!(
            Resource::for_kubectl_name("widgets.example.com"),
            Some(widgets())
        );
        // A group without a dot, a plural that is no DNS-1035 label, another version, a Kind
        // outside ASCII: no resource, on every path.
        assert_eq!(Resource::for_plural("example", "widgets"), None);
        assert_eq!(Resource::for_kubectl_name("widgets.example"), None);
        assert_eq!(Resource::for_type("example/v1", "Widget"), None);
        assert_eq!(Resource::for_plural("example.com", "Widgets"), None);
        assert_eq!(Resource::for_plural("example.com", "1widgets"), None);
        assert_eq!(Resource::for_plural("example.com", ""), None);
        assert_eq!(Resource::for_plural("Example.com", "widgets"), None);
        assert_eq!(Resource::for_type("example.com/v2", "Widget"), None);
        assert_eq!(Resource::for_type("example.com/v1", "Wídget"), None);
        assert_eq!(Resource::for_type("v1", "Widget"), None);
        let p = Resource::for_type("example.com/v1", "Policy").unwrap();
        assert_eq!(p.plural(), "policies");
        assert_eq!(p.kind(), "Policy");
        assert_eq!(widgets().kind(), "Widget");
        assert_eq!(widgets().short(), "widgets.example.com");
    }
}
