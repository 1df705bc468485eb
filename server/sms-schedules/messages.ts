/**
 * Texts only the server writes for scheduled SMS (the notification mail after a run, the reports' file names and
 * column headers), kept out of common/locales so the console, which never shows them, does not download them.
 */
import type { Language } from '../../common/limits.js';

const MESSAGES: Record<Language, Record<string, unknown>> = {
  'en-US': {
    mail: {
      scheduleRunSubject: 'Scheduled SMS "{{name}}": {{status}}',
      scheduleRunBody:
        'The scheduled SMS "{{name}}" ran at {{at}}.\nTargets: {{targets}}. Sent: {{sent}}. Failed: {{failed}}.\nThe execution history in the console shows each message.',
      scheduleStatus: {
        done: 'all sent',
        partial: 'partly sent',
        failed: 'not sent',
      },
    },
    reports: {
      names: {
        mt: 'MT report',
        mo: 'MO report',
        sims: 'Target SIMs',
      },
      files: {
        mt: 'scheduled-sms-mt',
        mo: 'scheduled-sms-mo',
        sims: 'scheduled-sms-sims',
      },
      columns: {
        runAt: 'Run time (UTC)',
        iccid: 'ICCID',
        msisdn: 'MSISDN',
        content: 'Content',
        status: 'Status',
        error: 'Error',
        sentAt: 'Sent at (UTC)',
        deliveredAt: 'Delivered at (UTC)',
        receivedAt: 'Received at (UTC)',
        inReplyTo: 'In reply to',
        deviceName: 'Device name',
        simStatus: 'SIM status',
      },
    },
  },
  'zh-CN': {
    mail: {
      scheduleRunSubject: '定时短信“{{name}}”：{{status}}',
      scheduleRunBody: '定时短信“{{name}}”已于 {{at}} 执行。\n目标：{{targets}}。已发送：{{sent}}。失败：{{failed}}。\n控制台的执行历史列出每条短信。',
      scheduleStatus: {
        done: '全部已发送',
        partial: '部分已发送',
        failed: '未发送',
      },
    },
    reports: {
      names: {
        mt: 'MT 报告',
        mo: 'MO 报告',
        sims: '目标 SIM',
      },
      files: {
        mt: 'scheduled-sms-mt',
        mo: 'scheduled-sms-mo',
        sims: 'scheduled-sms-sims',
      },
      columns: {
        runAt: '执行时间（UTC）',
        iccid: 'ICCID',
        msisdn: 'MSISDN',
        content: '内容',
        status: '状态',
        error: '错误',
        sentAt: '发送时间（UTC）',
        deliveredAt: '送达时间（UTC）',
        receivedAt: '接收时间（UTC）',
        inReplyTo: '回复的短信',
        deviceName: '设备名称',
        simStatus: 'SIM 状态',
      },
    },
  },
  'zh-TW': {
    mail: {
      scheduleRunSubject: '排程簡訊「{{name}}」：{{status}}',
      scheduleRunBody: '排程簡訊「{{name}}」已於 {{at}} 執行。\n目標：{{targets}}。已傳送：{{sent}}。失敗：{{failed}}。\n主控台的執行歷史列出每則簡訊。',
      scheduleStatus: {
        done: '全部已傳送',
        partial: '部分已傳送',
        failed: '未傳送',
      },
    },
    reports: {
      names: {
        mt: 'MT 報告',
        mo: 'MO 報告',
        sims: '目標 SIM',
      },
      files: {
        mt: 'scheduled-sms-mt',
        mo: 'scheduled-sms-mo',
        sims: 'scheduled-sms-sims',
      },
      columns: {
        runAt: '執行時間（UTC）',
        iccid: 'ICCID',
        msisdn: 'MSISDN',
        content: '內容',
        status: '狀態',
        error: '錯誤',
        sentAt: '傳送時間（UTC）',
        deliveredAt: '送達時間（UTC）',
        receivedAt: '接收時間（UTC）',
        inReplyTo: '回覆的簡訊',
        deviceName: '裝置名稱',
        simStatus: 'SIM 狀態',
      },
    },
  },
  'es-ES': {
    mail: {
      scheduleRunSubject: 'SMS programado «{{name}}»: {{status}}',
      scheduleRunBody:
        'El SMS programado «{{name}}» se ejecutó el {{at}}.\nDestinos: {{targets}}. Enviados: {{sent}}. Fallidos: {{failed}}.\nEl historial de ejecuciones de la consola muestra cada mensaje.',
      scheduleStatus: {
        done: 'todos enviados',
        partial: 'enviados en parte',
        failed: 'no enviados',
      },
    },
    reports: {
      names: {
        mt: 'Informe MT',
        mo: 'Informe MO',
        sims: 'SIM de destino',
      },
      files: {
        mt: 'scheduled-sms-mt',
        mo: 'scheduled-sms-mo',
        sims: 'scheduled-sms-sims',
      },
      columns: {
        runAt: 'Hora de ejecución (UTC)',
        iccid: 'ICCID',
        msisdn: 'MSISDN',
        content: 'Contenido',
        status: 'Estado',
        error: 'Error',
        sentAt: 'Enviado (UTC)',
        deliveredAt: 'Entregado (UTC)',
        receivedAt: 'Recibido (UTC)',
        inReplyTo: 'En respuesta a',
        deviceName: 'Nombre del dispositivo',
        simStatus: 'Estado de la SIM',
      },
    },
  },
};

/** The text of a key (e.g. "mail.scheduleRunSubject") in lang, en-US when missing, with its {{placeholders}} filled. */
export function scheduleText(lang: Language, key: string, params: Record<string, unknown> = {}): string {
  const find = (l: Language) =>
    key.split('.').reduce<unknown>((n, p) => (n && typeof n === 'object' ? (n as Record<string, unknown>)[p] : undefined), MESSAGES[l]);
  const template = find(lang) ?? find('en-US') ?? key;
  return String(template).replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => (params[name] === undefined ? `{{${name}}}` : String(params[name])));
}
