"""The language-server adapter: pygls glue over the pure analysis and transform layers."""
