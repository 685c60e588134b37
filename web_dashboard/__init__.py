"""web_dashboard package (see DESIGN.md)."""
