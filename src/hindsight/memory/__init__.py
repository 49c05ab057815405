"""Experience memory: retain, recall, forget, reflect."""
