"""The wire messages, generated from proto/ by scripts/generate-proto. DO NOT EDIT."""
