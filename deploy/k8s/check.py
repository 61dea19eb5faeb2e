#!/usr/bin/env python3
"""Checks deploy/k8s/reproduce.yaml without a cluster (kubectl's
--dry-run=client needs one for its schemas): every field is one the
Kubernetes API knows for its object (the subset of the batch/v1 Job, v1 Pod
and v1 PersistentVolumeClaim schemas these files use, field names and
types), names refer to what exists (volumes, the claim), and the shard
count agrees everywhere. Exits 0 when the file is valid, 1 with the
reasons, 3 when PyYAML is missing (the caller skips)."""
import sys

try:
    import yaml
except ImportError:
    print("PyYAML is not installed", file=sys.stderr)
    sys.exit(3)

# Object -> {field: type or nested object name}; lists as [type].
SCHEMA = {
    "PersistentVolumeClaim": {"apiVersion": str, "kind": str, "metadata": "ObjectMeta", "spec": "PVCSpec"},
    "Job": {"apiVersion": str, "kind": str, "metadata": "ObjectMeta", "spec": "JobSpec"},
    "ObjectMeta": {"name": str, "labels": dict, "annotations": dict, "namespace": str},
    "PVCSpec": {"accessModes": [str], "resources": "Resources", "storageClassName": str},
    "Resources": {"requests": dict, "limits": dict},
    "JobSpec": {"completionMode": str, "completions": int, "parallelism": int, "backoffLimit": int,
                "backoffLimitPerIndex": int, "maxFailedIndexes": int, "activeDeadlineSeconds": int,
                "ttlSecondsAfterFinished": int, "podReplacementPolicy": str,
                "podFailurePolicy": "PodFailurePolicy", "template": "PodTemplate"},
    "PodFailurePolicy": {"rules": ["PodFailurePolicyRule"]},
    "PodFailurePolicyRule": {"action": str, "onExitCodes": "OnExitCodes",
                             "onPodConditions": ["OnPodCondition"]},
    "OnExitCodes": {"containerName": str, "operator": str, "values": [int]},
    "OnPodCondition": {"type": str, "status": str},
    "PodTemplate": {"metadata": "ObjectMeta", "spec": "PodSpec"},
    "PodSpec": {"restartPolicy": str, "containers": ["Container"], "initContainers": ["Container"],
                "volumes": ["Volume"], "nodeSelector": dict},
    "Container": {"name": str, "image": str, "command": [str], "args": [str], "env": ["EnvVar"],
                  "resources": "Resources", "volumeMounts": ["VolumeMount"], "imagePullPolicy": str},
    "EnvVar": {"name": str, "value": str},
    "VolumeMount": {"name": str, "mountPath": str, "readOnly": bool},
    "Volume": {"name": str, "persistentVolumeClaim": "ClaimRef"},
    "ClaimRef": {"claimName": str, "readOnly": bool},
}
API = {"Job": "batch/v1", "PersistentVolumeClaim": "v1"}
errors = []


def check(value, kind, where):
    if isinstance(kind, list):
        if not isinstance(value, list):
            errors.append(f"{where}: expected a list")
            return
        for i, v in enumerate(value):
            check(v, kind[0], f"{where}[{i}]")
    elif isinstance(kind, str):
        if not isinstance(value, dict):
            errors.append(f"{where}: expected an object ({kind})")
            return
        for k, v in value.items():
            if k not in SCHEMA[kind]:
                errors.append(f"{where}.{k}: not a field of {kind}")
            else:
                check(v, SCHEMA[kind][k], f"{where}.{k}")
    elif not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        errors.append(f"{where}: expected {kind.__name__}, found {value!r}")


docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None]
claims = {d["metadata"]["name"] for d in docs if d.get("kind") == "PersistentVolumeClaim"}
for d in docs:
    kind, name = d.get("kind"), d.get("metadata", {}).get("name", "?")
    if kind not in API or d.get("apiVersion") != API[kind]:
        errors.append(f"{name}: kind {kind} with apiVersion {d.get('apiVersion')}")
        continue
    check(d, kind, f"{kind}/{name}")
    if kind != "Job":
        continue
    spec, pod = d["spec"], d["spec"]["template"]["spec"]
    if pod.get("restartPolicy") not in ("Never", "OnFailure"):
        errors.append(f"{name}: a Job's pods restart Never or OnFailure")
    for field in ("backoffLimitPerIndex", "podFailurePolicy"):
        if field in spec and pod.get("restartPolicy") != "Never":
            errors.append(f"{name}: {field} needs restartPolicy Never")
    if "podFailurePolicy" in spec and spec.get("podReplacementPolicy", "Failed") != "Failed":
        errors.append(f"{name}: podFailurePolicy needs podReplacementPolicy Failed")
    if spec.get("podReplacementPolicy") not in (None, "Failed", "TerminatingOrFailed"):
        errors.append(f"{name}: podReplacementPolicy is Failed or TerminatingOrFailed")
    for rule in spec.get("podFailurePolicy", {}).get("rules", []):
        if rule.get("action") not in ("Ignore", "FailJob", "FailIndex", "Count"):
            errors.append(f"{name}: podFailurePolicy action {rule.get('action')!r}")
        if ("onExitCodes" in rule) == ("onPodConditions" in rule):
            errors.append(f"{name}: a podFailurePolicy rule needs onExitCodes or onPodConditions")
    volumes = {v["name"] for v in pod.get("volumes", [])}
    for v in pod.get("volumes", []):
        if v["persistentVolumeClaim"]["claimName"] not in claims:
            errors.append(f"{name}: volume {v['name']} names no claim in the file")
    for c in pod.get("containers", []) + pod.get("initContainers", []):
        for m in c.get("volumeMounts", []):
            if m["name"] not in volumes:
                errors.append(f"{name}/{c['name']}: mounts unknown volume {m['name']}")
        for e in c.get("env", []):
            if e["name"] == "SHARDS" and spec.get("completionMode") == "Indexed":
                if not (int(e["value"]) == spec.get("completions") == spec.get("parallelism")):
                    errors.append(f"{name}: SHARDS, completions and parallelism differ")
    if spec.get("completionMode") == "Indexed" and "completions" not in spec:
        errors.append(f"{name}: an Indexed Job needs completions")
shards = {e["value"] for d in docs if d.get("kind") == "Job"
          for c in d["spec"]["template"]["spec"].get("containers", []) + d["spec"]["template"]["spec"].get("initContainers", [])
          for e in c.get("env", []) if e["name"] == "SHARDS"}
if len(shards) != 1:
    errors.append(f"the Jobs disagree on SHARDS: {sorted(shards)}")
for e in errors:
    print(e, file=sys.stderr)
sys.exit(1 if errors else 0)
