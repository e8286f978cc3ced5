"""ipywidgets 8 views over a project: matrix explorer, workflow stepper, spawn tree,
server panel, audit log. Each is a plain class holding its root widget in
``.widget``; displaying it shows the live widget, with a static ``text/html``
fallback for places without a widget front end."""
