//! The server's answers as HTTP: a body with its content type, JSON, the Table a request asks
//! for. A leaf: every other module may use it.

use crate::client::{self, UrlTarget};
use crate::now_ms;
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderValue, CONTENT_TYPE};
use serde_json::Value;
use std::convert::Infallible;

pub(crate) type Body = BoxBody<Bytes, Infallible>;
pub(crate) type HttpResponse = hyper::Response<Body>;

/// A response with a body and content type.
pub(crate) fn reply(code: u16, content_type: &str, body: Vec<u8>) -> HttpResponse {
    let mut r = hyper::Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() =
        hyper::StatusCode::from_u16(code).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    if let Ok(v) = HeaderValue::from_str(content_type)
        .map_err(drop)
        .and_then(|v| {
            if content_type.is_empty() {
                Err(())
            } else {
                Ok(v)
            }
        })
    {
        r.headers_mut().insert(CONTENT_TYPE, v);
    }
    r
}

/// A response whose body is written piece by piece as the client reads it (each piece a
/// frame), so that a large document is never held whole.
pub(crate) fn chunks_reply(
    code: u16,
    content_type: &str,
    chunks: impl Iterator<Item = String> + Send + Sync + Unpin + 'static,
) -> HttpResponse {
    struct Chunks<I>(I);
    impl<I: Iterator<Item = String> + Unpin> hyper::body::Body for Chunks<I> {
        type Data = Bytes;
        type Error = Infallible;
        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
            std::task::Poll::Ready(
                self.0
                    .next()
                    .map(|c| Ok(hyper::body::Frame::data(Bytes::from(c)))),
            )
        }
    }
    let mut r = reply(code, content_type, Vec::new());
    *r.body_mut() = Chunks(chunks).boxed();
    r
}

/// A JSON response.
pub(crate) fn json_reply(code: u16, body: &Value) -> HttpResponse {
    reply(code, "application/json", body.to_string().into_bytes())
}

/// A Table answer (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, what human
/// `kubectl get` sends): the resource and `includeObject`.
#[derive(Debug, Clone)]
pub(crate) struct TableWanted {
    pub resource: rvlab_core::store::Resource,
    pub include: rvlab_core::store::table::IncludeObject,
}

impl TableWanted {
    /// The Table of a GET's answer.
    pub fn of(&self, body: &Value) -> Value {
        rvlab_core::store::table::table(body, &self.resource, now_ms(), self.include)
    }
}

/// Whether the Accept header's first usable media range is the meta.k8s.io Table (v1 or
/// v1beta1) rather than the plain object.
pub(crate) fn wants_table(accept: Option<&str>) -> bool {
    for range in accept.unwrap_or("").split(',') {
        let mut parts = range.split(';').map(str::trim);
        let mt = parts.next().unwrap_or("").to_ascii_lowercase();
        let (mut as_, mut g, mut v) = (None, None, None);
        for p in parts {
            if let Some((k, val)) = p.split_once('=') {
                match k.trim() {
                    "as" => as_ = Some(val.trim().to_string()),
                    "g" => g = Some(val.trim().to_string()),
                    "v" => v = Some(val.trim().to_string()),
                    _ => {}
                }
            }
        }
        match (mt.as_str(), as_.as_deref()) {
            ("application/json", Some("Table"))
                if g.as_deref() == Some("meta.k8s.io")
                    && matches!(v.as_deref(), Some("v1" | "v1beta1")) =>
            {
                return true
            }
            ("application/json" | "*/*" | "application/*", None) => return false,
            _ => {}
        }
    }
    false
}

/// The Table a request asks for, if any.
pub(crate) fn table_wanted(
    accept: Option<&str>,
    path: &str,
    pairs: &[(String, String)],
) -> Option<TableWanted> {
    if !wants_table(accept) {
        return None;
    }
    let resource = match client::target(path) {
        UrlTarget::Object((g, p, _, _)) | UrlTarget::Collection(g, p, _) => {
            client::resource_of(&g, &p)?
        }
        UrlTarget::Other => return None,
    };
    let include = client::query_value(pairs, "includeObject")
        .and_then(rvlab_core::store::table::IncludeObject::parse)
        .unwrap_or_default();
    Some(TableWanted { resource, include })
}
