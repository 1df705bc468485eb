-- Live SMS statuses: the event log's `live` consumer (server/live/live-consumer.ts) turns SMS events (an
-- SMS received, delivered or failed; a scheduled run finished) into live events of the organisation, which every
-- instance's hub pushes to the browsers it holds. A new live type for them.
ALTER TABLE live_events DROP CONSTRAINT live_events_type_check;
ALTER TABLE live_events ADD CONSTRAINT live_events_type_check CHECK (type IN ('permissions', 'task', 'sms'));
