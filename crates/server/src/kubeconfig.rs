//! The kubeconfig `rvlab serve` writes: plain `http://`, an empty user (no TLS, no token), the
//! namespace `default` (client-go `tools/clientcmd/api/v1`'s kubeconfig).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;

/// The address clients should use: a wildcard listen address is reached over loopback.
pub fn client_addr(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), addr.port())
        }
        _ => addr,
    }
}

/// The kubeconfig's text for a server at `addr`.
pub fn text(addr: SocketAddr) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
- cluster:
    server: http://{}
  name: rvlab
contexts:
- context: {{cluster: rvlab, user: rvlab, namespace: default}}
  name: rvlab
current-context: rvlab
users:
- name: rvlab
  user: {{}}
",
        client_addr(addr)
    )
}

/// Writes it (creating the parent directory).
pub fn write(path: &Path, addr: SocketAddr) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text(addr))
        .map_err(|e| anyhow::anyhow!("cannot write the kubeconfig {}: {e}", path.display()))
}
