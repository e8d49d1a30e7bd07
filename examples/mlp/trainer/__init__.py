"""gpujob's example trainer: an MLP classifier on 28×28 images, trained with PyTorch
DistributedDataParallel on every GPU of every replica of the job (``python -m trainer.task
--help``)."""

import warnings

# The CPU build of torch warns at import when NumPy is absent; this trainer does not use NumPy.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
