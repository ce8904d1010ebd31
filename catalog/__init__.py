"""The catalog: reviewed data files (GPUs, models, offers, provider price tables) and the SQLite
database built from them with sqlite-utils. No estimation lives here."""
