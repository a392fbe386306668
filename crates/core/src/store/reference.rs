//! Object references (`configmap/my-config in team-a`) and the REST paths they map to.

use super::Resource;
use std::fmt;

/// A namespaced object reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectRef {
    pub resource: Resource,
    pub namespace: String,
    pub name: String,
}

impl ObjectRef {
    /// The object's key in etcd, as the apiserver names it: `/registry/configmaps/NS/NAME`,
    /// `/registry/namespaces/NAME`, a custom resource under its group,
    /// `/registry/GROUP/PLURAL/NS/NAME` (`store::etcd`; the inspector's storage step).
    pub fn registry_key(&self) -> String {
        let mut k = String::from("/registry/");
        if let Resource::Custom { group, .. } = &self.resource {
            k.push_str(group);
            k.push('/');
        }
        k.push_str(self.resource.plural());
        if !self.resource.is_cluster_scoped() {
            k.push('/');
            k.push_str(&self.namespace);
        }
        k.push('/');
        k.push_str(&self.name);
        k
    }

    /// `/api/v1/namespaces/NS/configmaps` (POST target); `/api/v1/namespaces` for a Namespace.
    pub fn collection_path(&self) -> String {
        if self.resource.is_cluster_scoped() {
            return format!("{}/{}", self.resource.api_prefix(), self.resource.plural());
        }
        format!(
            "{}/namespaces/{}/{}",
            self.resource.api_prefix(),
            self.namespace,
            self.resource.plural()
        )
    }
    /// `/api/v1/namespaces/NS/configmaps/NAME`.
    pub fn path(&self) -> String {
        format!("{}/{}", self.collection_path(), self.name)
    }
}

/// `configmap/my-config`, with ` in NS` when the namespace is not `default`.
impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.resource.short(), self.name)?;
        if self.namespace != "default" && !self.namespace.is_empty() {
            write!(f, " in {}", self.namespace)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_names_for_each_kind() {
        let cm = ObjectRef {
            resource: Resource::ConfigMap,
            namespace: "default".into(),
            name: "my-config".into(),
        };
        assert_eq!(cm.path(), "/api/v1/namespaces/default/configmaps/my-config");
        assert_eq!(cm.to_string(), "configmap/my-config");
        let d = Resource::Deployment;
        assert_eq!(d.group_resource(), "deployments.apps");
        assert_eq!(d.api_version(), "apps/v1");
        let w = Resource::Custom {
            plural: "widgets".into(),
            group: "example.com".into(),
        };
        assert_eq!(w.kind(), "Widget");
        assert_eq!(w.group_resource(), "widgets.example.com");
        let p = Resource::Custom {
            plural: "policies".into(),
            group: "example.com".into(),
        };
        assert_eq!(p.kind(), "Policy");
        let r = ObjectRef {
            resource: w,
            namespace: "team-a".into(),
            name: "w1".into(),
        };
        assert_eq!(
            r.path(),
            "/apis/example.com/v1/namespaces/team-a/widgets/w1"
        );
        assert_eq!(r.to_string(), "widgets.example.com/w1 in team-a");
    }
}
