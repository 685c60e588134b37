"""hardware package (see DESIGN.md)."""
