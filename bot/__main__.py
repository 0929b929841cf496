from bot.run import main

# Guarded: worker processes (spawned for the bots' searches) import this module under another name.
if __name__ == "__main__":
    raise SystemExit(main())
