//! A JSON-RPC proxy on loopback, in front of the devnet's anvil: it can delay every request
//! (to measure what node latency does to a handler), counts the HTTP requests, and records
//! every call with its answer. A recording replays without a node: [`RpcRecording::answer`]
//! answers a JSON-RPC body (single or batch) from the recorded calls.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alloy::primitives::Address;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::anvil::DevnetError;

/// One JSON-RPC call and what the node answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedCall {
    /// `eth_call`, `eth_gasPrice`, …
    pub method: String,
    /// The parameters as sent.
    pub params: Value,
    /// The `result` member, when the node answered one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The `error` member, when the node answered one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}

#[derive(Debug)]
struct ProxyState {
    upstream: String,
    http: reqwest::Client,
    delay_ms: AtomicU64,
    refuse_state_overrides: AtomicBool,
    requests: AtomicU64,
    calls: Mutex<Vec<RecordedCall>>,
}

/// The proxy, serving until dropped.
#[derive(Debug)]
pub struct RpcProxy {
    /// Its URL (`http://127.0.0.1:PORT`).
    pub url: String,
    state: Arc<ProxyState>,
    task: tokio::task::JoinHandle<()>,
}

impl RpcProxy {
    /// Starts a proxy to `upstream` that waits `delay` before forwarding each request.
    pub async fn start(upstream: &str, delay: Duration) -> Result<Self, DevnetError> {
        let state = Arc::new(ProxyState {
            upstream: upstream.to_owned(),
            http: reqwest::Client::new(),
            delay_ms: AtomicU64::new(u64::try_from(delay.as_millis()).unwrap_or(u64::MAX)),
            refuse_state_overrides: AtomicBool::new(false),
            requests: AtomicU64::new(0),
            calls: Mutex::new(Vec::new()),
        });
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let url = format!("http://{}", listener.local_addr()?);
        let app = axum::Router::new()
            .fallback(forward)
            .with_state(state.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self { url, state, task })
    }

    /// Changes the delay of later requests.
    pub fn set_delay(&self, delay: Duration) {
        self.state.delay_ms.store(
            u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    /// Answers every request holding an `eth_call` with a state override (a third parameter)
    /// as a node without overrides does (geth before 1.9.x, and providers that strip them):
    /// JSON-RPC error -32602 "too many arguments, want at most 2" for that call, the request's
    /// other calls answered by the node.
    pub fn set_refuse_state_overrides(&self, refuse: bool) {
        self.state
            .refuse_state_overrides
            .store(refuse, Ordering::Relaxed);
    }

    /// HTTP requests forwarded so far.
    pub fn http_requests(&self) -> u64 {
        self.state.requests.load(Ordering::Relaxed)
    }

    /// The calls recorded since the last take, in arrival order; resets the request count.
    pub fn take_calls(&self) -> Vec<RecordedCall> {
        self.state.requests.store(0, Ordering::Relaxed);
        self.state
            .calls
            .lock()
            .map(|mut calls| std::mem::take(&mut *calls))
            .unwrap_or_default()
    }
}

impl Drop for RpcProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn forward(State(state): State<Arc<ProxyState>>, body: Bytes) -> Response {
    state.requests.fetch_add(1, Ordering::Relaxed);
    let delay = state.delay_ms.load(Ordering::Relaxed);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    if state.refuse_state_overrides.load(Ordering::Relaxed)
        && let Ok(request) = serde_json::from_slice::<Value>(&body)
        && let Some(refusal) = refuse_state_override(&state, &request).await
    {
        if let Ok(mut calls) = state.calls.lock() {
            calls.extend(pair_calls(&request, &refusal));
        }
        return axum::Json(refusal).into_response();
    }
    let answer = state
        .http
        .post(&state.upstream)
        .header(header::CONTENT_TYPE, "application/json")
        .body(body.clone())
        .send()
        .await;
    let answer = match answer {
        Ok(answer) => answer.bytes().await,
        Err(e) => Err(e),
    };
    let answer = match answer {
        Ok(answer) => answer,
        Err(e) => return (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    };
    if let (Ok(request), Ok(response)) = (
        serde_json::from_slice::<Value>(&body),
        serde_json::from_slice::<Value>(&answer),
    ) && let Ok(mut calls) = state.calls.lock()
    {
        calls.extend(pair_calls(&request, &response));
    }
    ([(header::CONTENT_TYPE, "application/json")], answer).into_response()
}

/// Whether a JSON-RPC call is an `eth_call` with a state override (a third parameter).
fn overrides_state(call: &Value) -> bool {
    call["method"] == "eth_call" && call["params"].as_array().is_some_and(|p| p.len() > 2)
}

/// The answer of a node without state overrides to a body (single or batch) holding an
/// `eth_call` with one: that call's error, the other calls forwarded one by one; `None`
/// when the body holds none.
async fn refuse_state_override(state: &ProxyState, request: &Value) -> Option<Value> {
    let calls: Vec<&Value> = match request {
        Value::Array(items) => items.iter().collect(),
        single => vec![single],
    };
    if !calls.iter().any(|call| overrides_state(call)) {
        return None;
    }
    let mut answers = Vec::new();
    for call in calls {
        let answer = if overrides_state(call) {
            json!({"jsonrpc": "2.0", "id": call["id"],
                "error": {"code": -32602, "message": "too many arguments, want at most 2"}})
        } else {
            let forwarded = state.http.post(&state.upstream).json(call).send().await;
            match forwarded {
                Ok(answer) => answer.json::<Value>().await.ok()?,
                Err(_) => return None,
            }
        };
        answers.push(answer);
    }
    Some(match request {
        Value::Array(_) => Value::Array(answers),
        _ => answers.into_iter().next().unwrap_or(Value::Null),
    })
}

/// The calls of a request body (single or batch) with their answers, matched by id.
fn pair_calls(request: &Value, response: &Value) -> Vec<RecordedCall> {
    let requests: Vec<&Value> = match request {
        Value::Array(items) => items.iter().collect(),
        single => vec![single],
    };
    let responses: Vec<&Value> = match response {
        Value::Array(items) => items.iter().collect(),
        single => vec![single],
    };
    requests
        .into_iter()
        .filter_map(|call| {
            let answer = responses.iter().find(|r| r["id"] == call["id"])?;
            Some(RecordedCall {
                method: call["method"].as_str()?.to_owned(),
                params: call.get("params").cloned().unwrap_or(Value::Null),
                result: answer.get("result").cloned(),
                error: answer.get("error").cloned(),
            })
        })
        .collect()
}

/// A recorded request to a handler, with everything needed to replay it without a node.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RpcRecording {
    /// What it is.
    pub description: String,
    /// The command that wrote it.
    pub generated_by: String,
    /// The request body sent to the handler.
    pub request: Value,
    /// The chain the calls went to.
    pub chain: String,
    /// Registry overrides of that chain (`tokens.<SYMBOL>`).
    pub tokens: BTreeMap<String, Address>,
    /// Registry overrides of that chain (`contracts.<protocol>.<role>`).
    pub contracts: BTreeMap<String, BTreeMap<String, Address>>,
    /// HTTP requests the handler sent.
    pub http_requests: u64,
    /// Every JSON-RPC call, in arrival order, with the node's answer.
    pub calls: Vec<RecordedCall>,
}

impl RpcRecording {
    /// Reads a recording file.
    pub fn load(path: &Path) -> Result<Self, DevnetError> {
        let text = std::fs::read_to_string(path)?;
        serde_json::from_str(&text)
            .map_err(|e| DevnetError::Rpc(format!("recording {}: {e}", path.display())))
    }

    /// Writes it, pretty-printed with a final newline.
    pub fn save(&self, path: &Path) -> Result<(), DevnetError> {
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| DevnetError::Rpc(format!("recording: {e}")))?;
        text.push('\n');
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
        Ok(())
    }

    /// The answer to a JSON-RPC body from the recorded calls, matched on method and
    /// parameters, with the body's own ids; `None` if any call was not recorded.
    pub fn answer(&self, body: &Value) -> Option<Value> {
        let answer_one = |call: &Value| -> Option<Value> {
            let method = call["method"].as_str()?;
            let params = call.get("params").cloned().unwrap_or(Value::Null);
            let recorded = self
                .calls
                .iter()
                .find(|c| c.method == method && c.params == params)?;
            let mut answer = json!({"jsonrpc": "2.0", "id": call["id"]});
            match (&recorded.result, &recorded.error) {
                (Some(result), _) => answer["result"] = result.clone(),
                (None, Some(error)) => answer["error"] = error.clone(),
                (None, None) => return None,
            }
            Some(answer)
        };
        match body {
            Value::Array(calls) => calls
                .iter()
                .map(answer_one)
                .collect::<Option<Vec<_>>>()
                .map(Value::Array),
            single => answer_one(single),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_pair_by_id_and_replay_with_the_callers_ids() {
        let request = json!([
            {"jsonrpc": "2.0", "id": 7, "method": "eth_call", "params": [{"to": "0x01"}, "latest"]},
            {"jsonrpc": "2.0", "id": 8, "method": "eth_gasPrice", "params": []}
        ]);
        let response = json!([
            {"jsonrpc": "2.0", "id": 8, "result": "0x3b9aca08"},
            {"jsonrpc": "2.0", "id": 7, "error": {"code": 3, "message": "execution reverted"}}
        ]);
        let calls = pair_calls(&request, &response);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].method, "eth_call");
        assert!(calls[0].error.is_some());
        assert_eq!(calls[1].result, Some(json!("0x3b9aca08")));

        let recording = RpcRecording {
            description: String::new(),
            generated_by: String::new(),
            request: Value::Null,
            chain: "base".into(),
            tokens: BTreeMap::new(),
            contracts: BTreeMap::new(),
            http_requests: 1,
            calls,
        };
        let replayed = recording
            .answer(&json!({"jsonrpc": "2.0", "id": 42, "method": "eth_gasPrice", "params": []}))
            .expect("recorded");
        assert_eq!(
            replayed,
            json!({"jsonrpc": "2.0", "id": 42, "result": "0x3b9aca08"})
        );
        let batch = recording.answer(&request).expect("recorded");
        assert_eq!(batch[0]["id"], 7);
        assert_eq!(batch[0]["error"]["code"], 3);
        assert!(
            recording
                .answer(&json!({"id": 1, "method": "eth_chainId", "params": []}))
                .is_none()
        );
    }
}
