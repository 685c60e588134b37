"""vision package (see DESIGN.md)."""
