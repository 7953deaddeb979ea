"""The reproduction harness (driver, verify, timing), separate from the learners: nothing in the library imports it."""
