//! The security context a service's Kubernetes Deployment declares (`deploy/k8s/base`), as the
//! podman options that apply the same to a container, and the check inside a running container
//! that every process holds to it.
//!
//! The smoke run takes its options from the manifest, so the two cannot drift apart: a setting
//! the run cannot apply (another seccomp profile, an added capability, a root user, a missing
//! `/tmp` volume) stops it with the reason, and a manifest user other than the image's `USER`
//! too (the image's files are made for its own user).

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;

use super::{ServiceImage, podman};

/// What the manifest asks of the container.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hardening {
    /// `runAsUser`.
    pub uid: u64,
    /// `runAsGroup`.
    pub gid: u64,
    /// `readOnlyRootFilesystem`.
    pub read_only_root: bool,
    /// `capabilities.drop` holds `ALL` (and nothing is added).
    pub drop_all_capabilities: bool,
    /// `allowPrivilegeEscalation: false`.
    pub no_new_privileges: bool,
    /// The `/tmp` emptyDir's `sizeLimit`, in bytes.
    pub tmp_bytes: u64,
}

impl Hardening {
    /// The Deployment of `service` in `deploy/k8s/base`, read with the deploy check's YAML
    /// reader.
    pub fn of(service: ServiceImage) -> Result<Self> {
        let file = if service.dockerfile.starts_with("analytics") {
            "analytics.yaml"
        } else {
            "docs.yaml"
        };
        let objects = crate::deploy_check::base_manifest(file)?;
        let deployment = objects
            .iter()
            .find(|o| o["kind"] == "Deployment")
            .with_context(|| format!("no Deployment in deploy/k8s/base/{file}"))?;
        Self::from_deployment(deployment).with_context(|| format!("deploy/k8s/base/{file}"))
    }

    /// The settings of a Deployment object (as JSON), refused where podman here could not apply
    /// them as declared.
    pub fn from_deployment(deployment: &Value) -> Result<Self> {
        let pod = &deployment["spec"]["template"]["spec"];
        let pod_context = &pod["securityContext"];
        let containers = pod["containers"].as_array().context("no containers")?;
        let [container] = containers.as_slice() else {
            bail!("{} containers; the smoke run knows one", containers.len());
        };
        let context = &container["securityContext"];
        // A container's own setting wins over the pod's, as in Kubernetes.
        let field = |name: &str| {
            let own = &context[name];
            if own.is_null() {
                &pod_context[name]
            } else {
                own
            }
        };
        if field("runAsNonRoot") != &Value::Bool(true) {
            bail!("runAsNonRoot is not true");
        }
        let id = |name: &str| {
            field(name)
                .as_u64()
                .with_context(|| format!("{name} is not a number"))
        };
        let (uid, gid) = (id("runAsUser")?, id("runAsGroup")?);
        if uid == 0 {
            bail!("runAsUser is 0");
        }
        let seccomp = field("seccompProfile")["type"]
            .as_str()
            .unwrap_or("Unconfined");
        if seccomp != "RuntimeDefault" {
            // podman applies its default profile, the counterpart of RuntimeDefault, only.
            bail!("seccompProfile {seccomp}: the smoke run applies RuntimeDefault only");
        }
        let capabilities = &context["capabilities"];
        if capabilities["add"]
            .as_array()
            .is_some_and(|added| !added.is_empty())
        {
            bail!("capabilities are added: {}", capabilities["add"]);
        }
        let drop_all_capabilities = capabilities["drop"]
            .as_array()
            .is_some_and(|dropped| dropped.iter().any(|c| c == "ALL"));
        let tmp_volume = container["volumeMounts"]
            .as_array()
            .and_then(|mounts| mounts.iter().find(|m| m["mountPath"] == "/tmp"))
            .and_then(|m| m["name"].as_str())
            .context("nothing is mounted at /tmp")?;
        let size = pod["volumes"]
            .as_array()
            .and_then(|volumes| volumes.iter().find(|v| v["name"] == tmp_volume))
            .map(|v| &v["emptyDir"]["sizeLimit"])
            .and_then(Value::as_str)
            .with_context(|| format!("volume {tmp_volume} is not an emptyDir with a sizeLimit"))?;
        Ok(Self {
            uid,
            gid,
            read_only_root: context["readOnlyRootFilesystem"] == Value::Bool(true),
            drop_all_capabilities,
            no_new_privileges: context["allowPrivilegeEscalation"] == Value::Bool(false),
            tmp_bytes: quantity_bytes(size)?,
        })
    }

    /// The `podman run` options that apply it (podman's default seccomp profile is on unless
    /// turned off, and nothing here turns it off).
    pub fn podman_args(&self) -> Vec<String> {
        let mut args = vec![
            "--user".to_owned(),
            format!("{}:{}", self.uid, self.gid),
            "--tmpfs".to_owned(),
            format!("/tmp:rw,size={}", self.tmp_bytes),
        ];
        if self.read_only_root {
            args.push("--read-only".to_owned());
        }
        if self.drop_all_capabilities {
            args.extend(["--cap-drop".to_owned(), "ALL".to_owned()]);
        }
        if self.no_new_privileges {
            args.extend(["--security-opt".to_owned(), "no-new-privileges".to_owned()]);
        }
        args
    }

    /// The image's `USER` is the manifest's user and group.
    pub fn check_image_user(&self, tag: &str) -> Result<()> {
        let output = podman()
            .args(["image", "inspect", "--format", "{{.Config.User}}", tag])
            .output()?;
        let user = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        if user != format!("{}:{}", self.uid, self.gid) {
            bail!(
                "{tag} runs as {user:?}, the manifest as {}:{}",
                self.uid,
                self.gid
            );
        }
        Ok(())
    }

    /// Every process of the running container `name` (its init, the server and any worker it
    /// started) as the manifest says: the user and group, no effective or permitted capability
    /// when all are dropped, no new privileges, the seccomp filter on. Returns the processes
    /// seen (`comm`).
    pub fn check_processes(&self, name: &str) -> Result<Vec<String>> {
        // The exec's own shell and tools are left out by name; what is left is the container's.
        let script = "for d in /proc/[0-9]*; do c=$(cat $d/comm 2>/dev/null) || continue; \
             s=$(grep -E '^(Uid|Gid|CapEff|CapPrm|NoNewPrivs|Seccomp):' $d/status 2>/dev/null | tr -s '\\t ' ' ' | tr '\\n' ';'); \
             echo \"$c|$s\"; done";
        let output = podman().args(["exec", name, "sh", "-c", script]).output()?;
        if !output.status.success() {
            bail!(
                "reading /proc in {name}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let mut seen = Vec::new();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Some((comm, status)) = line.split_once('|') else {
                continue;
            };
            if ["sh", "cat", "grep", "tr"].contains(&comm) {
                continue;
            }
            let value = |key: &str| {
                status
                    .split(';')
                    .find_map(|f| f.strip_prefix(key))
                    .map(str::trim)
                    .unwrap_or_default()
                    .to_owned()
            };
            let ids = |key: &str| -> Vec<u64> {
                value(key)
                    .split(' ')
                    .filter_map(|v| v.parse().ok())
                    .collect()
            };
            let mut wrong = Vec::new();
            if ids("Uid:").iter().any(|&u| u != self.uid) {
                wrong.push(format!("Uid {}", value("Uid:")));
            }
            if ids("Gid:").iter().any(|&g| g != self.gid) {
                wrong.push(format!("Gid {}", value("Gid:")));
            }
            if self.drop_all_capabilities {
                for key in ["CapEff:", "CapPrm:"] {
                    if !value(key).trim_start_matches('0').is_empty() {
                        wrong.push(format!("{key} {}", value(key)));
                    }
                }
            }
            if self.no_new_privileges && value("NoNewPrivs:") != "1" {
                wrong.push(format!("NoNewPrivs {}", value("NoNewPrivs:")));
            }
            // 2: a seccomp filter is in force.
            if value("Seccomp:") != "2" {
                wrong.push(format!("Seccomp {}", value("Seccomp:")));
            }
            if !wrong.is_empty() {
                bail!("{comm} in {name}: {}", wrong.join(", "));
            }
            seen.push(comm.to_owned());
        }
        Ok(seen)
    }
}

/// A Kubernetes quantity (`64Mi`, `1Gi`, `500M`, `1000`) in bytes.
fn quantity_bytes(text: &str) -> Result<u64> {
    let units: [(&str, u64); 8] = [
        ("Ki", 1 << 10),
        ("Mi", 1 << 20),
        ("Gi", 1 << 30),
        ("Ti", 1 << 40),
        ("k", 1_000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
        ("T", 1_000_000_000_000),
    ];
    let (number, factor) = units
        .iter()
        .find_map(|(suffix, factor)| text.strip_suffix(suffix).map(|n| (n, *factor)))
        .unwrap_or((text, 1));
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .with_context(|| format!("{text:?} is not a whole quantity of bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(container_context: Value, volumes: Value) -> Value {
        json!({"kind": "Deployment", "spec": {"template": {"spec": {
            "securityContext": {"runAsNonRoot": true, "runAsUser": 10002, "runAsGroup": 10002,
                "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "docs-server", "securityContext": container_context,
                "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}]}],
            "volumes": volumes
        }}}})
    }

    #[test]
    fn the_manifests_context_becomes_podman_options() {
        let hardening = Hardening::from_deployment(&deployment(
            json!({"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
                "capabilities": {"drop": ["ALL"]}}),
            json!([{"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}}]),
        ))
        .expect("applies");
        assert_eq!(
            hardening.podman_args(),
            [
                "--user",
                "10002:10002",
                "--tmpfs",
                "/tmp:rw,size=1073741824",
                "--read-only",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges"
            ]
        );
    }

    #[test]
    fn what_the_run_cannot_apply_is_refused() {
        let volumes = json!([{"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}}]);
        let added = deployment(
            json!({"capabilities": {"add": ["NET_ADMIN"]}}),
            volumes.clone(),
        );
        assert!(Hardening::from_deployment(&added).is_err());
        let mut unconfined = deployment(json!({}), volumes.clone());
        unconfined["spec"]["template"]["spec"]["securityContext"]["seccompProfile"]["type"] =
            json!("Unconfined");
        assert!(Hardening::from_deployment(&unconfined).is_err());
        let mut root = deployment(json!({}), volumes);
        root["spec"]["template"]["spec"]["securityContext"]["runAsUser"] = json!(0);
        assert!(Hardening::from_deployment(&root).is_err());
        let no_tmp = deployment(json!({}), json!([]));
        assert!(Hardening::from_deployment(&no_tmp).is_err());
        assert_eq!(quantity_bytes("64Mi").expect("quantity"), 64 << 20);
        assert!(quantity_bytes("1.5Gi").is_err());
    }
}
