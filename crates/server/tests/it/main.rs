//! The one integration-test binary of rvlab-server: real servers on loopback, started by the
//! tests themselves (one module per area).

mod support;

mod bounds;
mod etcd;
mod hardening;
mod interfere;
mod live;
mod reference;
mod scripted;
mod serve;
mod stale;
mod watch;
mod wire_kubectl;
