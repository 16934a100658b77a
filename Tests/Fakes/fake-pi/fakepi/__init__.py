"""fake-pi implementation package."""
