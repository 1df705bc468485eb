/** scheduleSmsDetails: the list of scheduled SMS, or one of them when the address names it (?id=). */
import { Skeleton } from 'antd';
import { useSearchParams } from 'react-router';
import { ScheduleDetails } from './schedule-details';
import { ScheduleList } from './schedule-list';
import { useScheduleTexts } from './texts';

export function ScheduleSmsPage() {
  const [params] = useSearchParams();
  const id = params.get('id');
  if (!useScheduleTexts()) return <Skeleton active />;
  return id ? <ScheduleDetails key={id} id={id} /> : <ScheduleList />;
}
