"""The checking engine, the same for every service: JSON Schema first (with a fast path for the
documents it accepts), likely typos, then the rules the service gives, and the reporters. It
receives the service and imports none."""
