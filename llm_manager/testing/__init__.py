"""Test helpers other apps may use: the fake OpenAI-compatible server and register_fake_api()."""
