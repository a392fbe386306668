//! The store as etcd keeps it (`crate::store::etcd`), over the lessons' runs.

use rvlab_core::store::etcd::{registry_key, stored_value};
use rvlab_core::store::{ObjectRef, Store};
use serde_json::Value;

/// Every lesson's final store, stored as etcd keeps it and read back, is the same store but
/// for provenance (objects, managedFields and all).
#[test]
fn every_lesson_store_round_trips_through_its_stored_form() {
    for lesson in rvlab_core::lessons::LESSONS {
        let parsed = rvlab_core::lang::parse(lesson.source);
        let scenario = parsed.scenario.expect("lessons parse");
        let mut world = rvlab_core::engine::World::new(&scenario, 1).expect("lessons run");
        while let Ok(Some(_)) = world.take_step(&scenario, None) {}
        let store = &world.store;
        let kvs: Vec<(String, Value, u64)> = store
            .objects()
            .map(|(r, o)| {
                let rv = store.resource_version(r).expect("a stored object has one");
                (registry_key(r), stored_value(o), rv)
            })
            .collect();
        let back = Store::from_etcd(store.revision(), kvs).expect("reads back");
        assert_eq!(back.revision(), store.revision(), "{}", lesson.id);
        let rows = |s: &Store| -> Vec<(ObjectRef, Value)> {
            s.objects().map(|(r, o)| (r.clone(), o.clone())).collect()
        };
        assert_eq!(rows(store), rows(&back), "{}", lesson.id);
        // The managers in the order managedFields lists them (the model keeps them in the
        // order they first wrote; the apiserver decodes them in the listed order).
        assert_eq!(store.inconsistent_managed_fields(), vec![], "{}", lesson.id);
        assert_eq!(back.inconsistent_managed_fields(), vec![], "{}", lesson.id);
    }
}
