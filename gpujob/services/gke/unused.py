"""What GKE does instead of what a flag or config field asks for that a JobSet has no place
for: one wording each, for the service's refused flags (``Gke.unsupported_flags``) and the
config fields' notes (``fields``)."""

NETWORK = "pods use the cluster's network (the cluster's VPC is chosen when it is created)"
WEB = "use kubectl port-forward or exec to reach a pod"
KMS = "the cluster's disks are encrypted as the cluster is configured"
