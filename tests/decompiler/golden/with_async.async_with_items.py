async def async_with_items():
    log = []
    async with AsyncTracker(log, 'a') as a, AsyncTracker(log, 'b') as b:
        log.append((a, b))
    async with AsyncTracker(log, 'c'):
        await Step('inside')
    return log
