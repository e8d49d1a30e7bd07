"""Talking to Google Cloud: credentials, the API clients, retries, error messages, logs.

Every module here imports google-auth and google-api-python-client inside its functions, so that
importing ``gpujob.gcp.settings`` (as ``cli.py`` does) costs nothing.
"""
