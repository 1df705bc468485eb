/** scheduleSmsDetails: the list of scheduled SMS, or one of them when the address names it (?id=). */
import { useSearchParams } from 'react-router';
import { ScheduleDetails } from './schedule-details';
import { ScheduleList } from './schedule-list';

export function ScheduleSmsPage() {
  const [params] = useSearchParams();
  const id = params.get('id');
  return id ? <ScheduleDetails key={id} id={id} /> : <ScheduleList />;
}
