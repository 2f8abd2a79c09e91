"""The daily challenge on the pages: which day a deal is and what may be shown (:mod:`.days`),
the day's board (:mod:`.board`) and the month's calendar (:mod:`.calendar`)."""
