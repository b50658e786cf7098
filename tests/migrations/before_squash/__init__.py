"""Every app's migrations as they were before the squash into 0001_squashed: data for the upgrade test, never loaded by the app."""
