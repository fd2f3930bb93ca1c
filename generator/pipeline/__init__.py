"""The steps every run takes, in order: load (read matrix.yaml, remembering where each value
was written) -> validate (schema, knowledge table: a Matrix) -> expand (the Variants) ->
render (the text of every file) -> write (bring the tree in line, or report how it differs).
`generator.run` takes a project through them; the outputs merged into files of the user's
are in `generator.outputs`, and the commands that serve people in `generator.commands`."""
