"""KestrelDB's benchmark suite (bench/README.md)."""
