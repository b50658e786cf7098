"""post_save receivers that dispatch embedding after commit."""
