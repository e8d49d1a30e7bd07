"""Kueue's word on a suspended JobSet: its Workload's conditions (``Jobs.get``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpujob.services.gke.api import Api


def conditions(api: Api, ns: str, uid: str) -> list[str]:
    """What Kueue's Workload for the JobSet says of why it is not admitted (its conditions
    that are False, and admission checks not Ready). Advice only: no answer is no advice; an
    answer that cannot be read is a remote error (``answers``)."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    from gpujob.services.gke import answers

    what = f"reading Kueue's Workloads in namespace {ns}"
    for version in ("v1beta2", "v1beta1"):
        def listed(version: str = version) -> tuple[str, bytes]:
            response = api.custom.list_namespaced_custom_object(
                "kueue.x-k8s.io", version, ns, "workloads",
                label_selector=f"kueue.x-k8s.io/job-uid={uid}", _preload_content=False,
                _request_timeout=api.timeout)
            return str(response.headers.get("Content-Type") or ""), response.data or b""

        try:
            content_type, data = api.bounded(listed)
        except ApiException as exc:
            if exc.status == 404:
                continue
            return []
        except (HTTPError, OSError):  # advice only: the JobSet's own state is still said
            return []
        items = answers.workloads(answers.json_object(answers.decode(data, content_type), what),
                                  what)
        lines = []
        for item in items:
            st = item.get("status") or {}
            for c in st.get("conditions") or []:
                if c.get("type") in ("QuotaReserved", "Admitted", "Evicted") and \
                        (c.get("status") == "False") == (c.get("type") != "Evicted"):
                    lines.append(f"Kueue: {c.get('type')} {c.get('status')} "
                                 f"({c.get('reason', '')}): {c.get('message', '')}")
            for check in st.get("admissionChecks") or []:
                if check.get("state") != "Ready":
                    lines.append(f"Kueue: admission check {check.get('name')} is "
                                 f"{check.get('state')}: {check.get('message', '')}")
        return lines
    return []
