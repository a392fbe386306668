//! A second client through plain HTTP/1.1 on loopback: hyper's own client (hyper-util's
//! pooled `Client`, keep-alive), async for the benchmark ([`AsyncHttp`]) and blocking for tests
//! ([`Http`], on its own current-thread runtime).

use anyhow::{Context, Result};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;

/// The User-Agent of this client (the server names it by its product, `rvlab-clients`).
pub const USER_AGENT: &str = "rvlab-clients/0.1";

/// An answer: status code and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The HTTP status code.
    pub code: u16,
    /// The body as text.
    pub body: String,
}

impl Reply {
    /// The body parsed as JSON.
    pub fn json(&self) -> Result<serde_json::Value> {
        serde_json::from_str(&self.body)
            .with_context(|| format!("not JSON ({}): {}", self.code, self.body))
    }
}

/// An async client for one server (its own connection pool).
#[derive(Clone)]
pub struct AsyncHttp {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
}

impl AsyncHttp {
    /// A client for the server at `base` (`http://127.0.0.1:PORT`); needs a tokio runtime.
    pub fn new(base: &str) -> AsyncHttp {
        AsyncHttp {
            client: Client::builder(TokioExecutor::new()).build_http(),
            base: base.trim_end_matches('/').to_owned(),
        }
    }

    /// Sends `method path` with an optional body and Content-Type; reads the whole answer.
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: Option<String>,
    ) -> Result<Reply> {
        let mut req = hyper::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("user-agent", USER_AGENT)
            .header("accept", "application/json");
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        let req = req.body(Full::new(Bytes::from(body.unwrap_or_default())))?;
        let resp = self
            .client
            .request(req)
            .await
            .with_context(|| format!("{method} {path}"))?;
        let code = resp.status().as_u16();
        let bytes = resp.into_body().collect().await?.to_bytes();
        Ok(Reply {
            code,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        })
    }
}

/// A blocking client for tests.
pub struct Http {
    rt: tokio::runtime::Runtime,
    inner: AsyncHttp,
}

impl Http {
    /// A client for the server at `base`.
    pub fn new(base: &str) -> Result<Http> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let inner = {
            let _guard = rt.enter();
            AsyncHttp::new(base)
        };
        Ok(Http { rt, inner })
    }

    /// See [`AsyncHttp::request`].
    pub fn request(
        &self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> Result<Reply> {
        self.rt.block_on(
            self.inner
                .request(method, path, content_type, body.map(str::to_owned)),
        )
    }

    /// `GET path`, which must answer 200 with JSON.
    pub fn get_json(&self, path: &str) -> Result<serde_json::Value> {
        let reply = self.request("GET", path, None, None)?;
        anyhow::ensure!(reply.code == 200, "GET {path}: {reply:?}");
        reply.json()
    }
}
