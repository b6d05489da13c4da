//! What the route benchmarks share: a committed recording's request, the chain access that
//! reads the devnet through the measuring proxy with the recording's registry overrides, and
//! one request's answer with the HTTP requests it sent.

use std::collections::BTreeMap;
use std::time::Duration;

use analytics_server::chains::Chains;
use analytics_server::config::ChainEndpoint;
use analytics_server::requests::Chain;
use serde::de::DeserializeOwned;
use test_devnet::{RpcProxy, RpcRecording};

/// Added to every RPC request in the latency benchmarks.
pub(crate) const INJECTED: Duration = Duration::from_millis(50);

/// `testdata/rpc-recordings/<file>.json` and the request body it was made with.
pub(crate) fn recorded_request<R: DeserializeOwned>(file: &str) -> (R, RpcRecording) {
    let recording = RpcRecording::load(&test_devnet::recordings_dir().join(format!("{file}.json")))
        .expect("recording");
    let request = serde_json::from_value(recording.request.clone()).expect("request");
    (request, recording)
}

/// Chain `base` read through `proxy` with `recording`'s registry overrides.
pub(crate) fn chains(proxy: &RpcProxy, recording: &RpcRecording) -> Chains {
    let endpoint = ChainEndpoint::at(
        &proxy.url,
        recording.tokens.clone(),
        recording.contracts.clone(),
    );
    Chains::from_config(&BTreeMap::from([(Chain::Base, endpoint)])).expect("chains")
}

/// The answer of `work` (expected to succeed: `what` names it) and the HTTP requests it sent
/// through `proxy`.
pub(crate) fn counted<T, E: std::fmt::Debug>(
    runtime: &tokio::runtime::Runtime,
    proxy: &RpcProxy,
    work: impl std::future::Future<Output = Result<T, E>>,
    what: &str,
) -> (T, u64) {
    proxy.take_calls();
    let answer = runtime.block_on(work).expect(what);
    (answer, proxy.http_requests())
}
