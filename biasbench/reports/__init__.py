"""Tables and figures: generic machinery (``tables``, ``figures``, ``targets``) and one module
per paper that declares its targets with their inputs (``husse2022``); ``catalog`` lists them
all for the workflow."""
